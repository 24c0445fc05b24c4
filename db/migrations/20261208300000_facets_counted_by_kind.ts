import type { Knex } from 'knex';

/**
 * A version's per-cluster counts are trusted by kind (issue, label, tag) rather than all or none: a label write
 * forgets the label counts alone, and a task's end counts those again (at 1,000,000 media 10 s for the labels,
 * against 28-36 s for every kind, past the task end's 30 s). `facets_counted` lists the kinds whose counts match
 * the rows; it replaces `facets_counted_at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE dataset_versions ADD COLUMN facets_counted text[] NOT NULL DEFAULT '{}';
    UPDATE dataset_versions SET facets_counted = '{issue,label,tag}' WHERE facets_counted_at IS NOT NULL;
    ALTER TABLE dataset_versions DROP COLUMN facets_counted_at;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE dataset_versions ADD COLUMN facets_counted_at timestamptz;
    UPDATE dataset_versions SET facets_counted_at = now() WHERE facets_counted @> '{issue,label,tag}';
    ALTER TABLE dataset_versions DROP COLUMN facets_counted;
  `);
}
