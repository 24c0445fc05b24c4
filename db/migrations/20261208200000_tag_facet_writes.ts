import type { Knex } from 'knex';

/**
 * A tag's count of a cluster keeps figures and previews too, like an issue type's and a label's, but a tag write
 * does not recount them: it drops them and adds one to `writes`. The next page that shows the cluster counts them
 * from its members and stores them back, unless `writes` moved meanwhile (clusterFacets.ts recountedTagPage). Counts
 * made before are left as they are: their tag rows have no figures yet, the state a tag write leaves.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE cluster_facet_counts ADD COLUMN writes integer NOT NULL DEFAULT 0');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE cluster_facet_counts DROP COLUMN writes');
}
