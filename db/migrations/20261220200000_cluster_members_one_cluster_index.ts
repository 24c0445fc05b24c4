import type { Knex } from 'knex';

/**
 * Memberships had two indexes on their cluster: `(cluster_id)`, left from the foreign key to clusters (dropped in
 * 20261127300000), and `(clustering_id, cluster_id)`. Every read names its clustering (a copied clustering keeps its
 * clusters' ids), so the second serves them all, and the first only cost each written membership one more insert at a
 * random place: an analysis of 100,000 media wrote its 500,000 memberships in 9.3-11.2 s without it against
 * 12.6-13.3 s with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS cluster_members_cluster_id_index');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX IF NOT EXISTS cluster_members_cluster_id_index ON cluster_members (cluster_id)');
}
