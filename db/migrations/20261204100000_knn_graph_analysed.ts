import type { Knex } from 'knex';

/**
 * Which part of a version's stored kNN graph its stored analysis (clusters, scores, map) was made from: chunk rows
 * 0 … analysed_chunks-1 over its first analysed_items ordinals. A re-clustering after an extension then reads and
 * rewrites only around the items since (docs/decisions.md "Re-clustering only what changed"). NULL (a graph stored
 * before this column) counts every item as changed.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE knn_graphs ADD COLUMN analysed_chunks integer, ADD COLUMN analysed_items integer');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE knn_graphs DROP COLUMN analysed_chunks, DROP COLUMN analysed_items');
}
