import type { Knex } from 'knex';

/**
 * Indexes for the two filters by a threshold, so a page whose filter few media pass reads those media alone
 * instead of every row of the version. At 1,000,000 media: `uniqueness ≥ 0.9` (10,165 media) 450-560 → 190-220 ms,
 * `duplicates ≥ 0.95` (none of 989,835 duplicate issues) 350-480 → 15 ms. The uniqueness index costs the whole
 * analysis's uniqueness write: 26.6-36.6 → 52 s for 1,000,000 rows, since no update of the score can be HOT any more.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX media_version_uniqueness ON media (version_id, uniqueness_score);
    CREATE INDEX media_issues_duplicate_similarity ON media_issues (version_id, ((details->>'similarity')::float8))
      WHERE issue_type = 'duplicates';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX media_version_uniqueness; DROP INDEX media_issues_duplicate_similarity');
}
