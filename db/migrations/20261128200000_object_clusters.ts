import type { Knex } from 'knex';

/**
 * Object clusters: each detected object's cluster at thresholds 0-4 (`cluster_ids[threshold + 1]`),
 * computed over the crop embeddings of a version's objects. Explore groups objects by it on the fly;
 * a version holds far fewer objects than a clusters table would need rows to pay off.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE media_objects ADD COLUMN cluster_ids uuid[]');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE media_objects DROP COLUMN cluster_ids');
}
