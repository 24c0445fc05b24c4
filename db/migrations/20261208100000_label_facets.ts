import type { Knex } from 'knex';

/**
 * Labels join issue types and tags among the per-cluster counts (cluster_facet_counts), with figures and previews
 * as issue types keep them: a page filtered by one label then reads no member (at 1,000,000 media a label of 50,000
 * read every membership of its threshold, about 1 s). Counts made before have no label: they are forgotten here, and
 * the next task's end counts them again (filtered pages count from the rows meanwhile).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM cluster_facet_counts;
    UPDATE dataset_versions SET facets_counted_at = NULL WHERE facets_counted_at IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM cluster_facet_counts WHERE facet LIKE 'label:%'`);
}
