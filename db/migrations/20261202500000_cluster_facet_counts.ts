import type { Knex } from 'knex';

/**
 * Per cluster, how many of its members carry each issue type and tag (a facet: `issue:blur`,
 * `tag:<tag id>`), so a filtered Explore page reads its clusters in order from an index instead of
 * counting every match. `dataset_versions.facets_counted_at` says the counts match the version's
 * rows; writers of issues and memberships clear it, tag writes keep the counts up to date, and a
 * task's end counts a version whose counts were cleared. No foreign key: its row-by-row check took a
 * third of a count (1.6 s of 5 at 250,000 media); the deletions of versions delete their counts.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE cluster_facet_counts (
      version_id uuid NOT NULL,
      threshold smallint NOT NULL,
      facet text NOT NULL,
      cluster_id uuid NOT NULL,
      n integer NOT NULL,
      PRIMARY KEY (version_id, threshold, facet, cluster_id)
    );
    CREATE INDEX cluster_facet_counts_page ON cluster_facet_counts (version_id, threshold, facet, n DESC, cluster_id);
    ALTER TABLE dataset_versions ADD COLUMN facets_counted_at timestamptz;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE dataset_versions DROP COLUMN facets_counted_at');
  await knex.schema.dropTableIfExists('cluster_facet_counts');
}
