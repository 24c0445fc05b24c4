import type { Knex } from 'knex';

/**
 * What a version's stored kNN graph is over, so a reindex can extend it (docs/decisions.md "Incremental reindex"):
 * the item ids its ordinals stand for (16 bytes each, in ordinal order: by id at a full analysis, each incremental
 * reindex appending its new items), which items' lists were searched, how many chunk rows make the graph, and the
 * vector space it was searched in. A row exists only for a complete graph: the step that completes it writes it.
 * `knn_edges.candidates` holds, for a chunk of new items, the existing items each new item may enter (the existing
 * item, the new item, their similarity), merged once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE knn_graphs (
      version_id uuid PRIMARY KEY REFERENCES dataset_versions (id) ON DELETE CASCADE,
      vector_space_id uuid NOT NULL,
      item_ids bytea NOT NULL,
      searched bytea NOT NULL,
      chunks integer NOT NULL
    );
    ALTER TABLE knn_graphs ALTER COLUMN item_ids SET STORAGE EXTERNAL;
    ALTER TABLE knn_edges ADD COLUMN candidates bytea;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE knn_edges DROP COLUMN candidates');
  await knex.schema.dropTableIfExists('knn_graphs');
}
