import type { Knex } from 'knex';

/**
 * Each issue type's count of a cluster (cluster_facet_counts) keeps, as a cluster does (clusters.previews), its
 * figures by kind and its previews: a page filtered by one issue type then reads 10 media per cluster, not every
 * member of its clusters (at 1,000,000 media an issue's first page read about 100,000). A tag's count keeps n alone
 * (null figures): tag writes move it by their own media. Counts made before have none:
 * they are forgotten here, and the next task's end counts them again (filtered pages count from the rows meanwhile).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE cluster_facet_counts
      ADD COLUMN n_images integer,
      ADD COLUMN n_frames integer,
      ADD COLUMN n_videos integer,
      ADD COLUMN previews uuid[];
    DELETE FROM cluster_facet_counts;
    UPDATE dataset_versions SET facets_counted_at = NULL WHERE facets_counted_at IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE cluster_facet_counts DROP COLUMN n_images, DROP COLUMN n_frames, DROP COLUMN n_videos, DROP COLUMN previews;
  `);
}
