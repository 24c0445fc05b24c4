import type { Knex } from 'knex';

/**
 * The kNN graph of a version's last analysis, one row per neighbour-search chunk: `hits` holds, per
 * neighbour found, the searching item's ordinal (int32), the neighbour's ordinal (int32) and their
 * similarity (float64), little-endian, ordinals being places in the version's images and frames by id.
 * One blob per chunk keeps a repeated chunk an overwrite and the graph ~16 bytes per hit
 * (docs/decisions.md "kNN edges: one blob per chunk"). Stored uncompressed: floats do not compress.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE knn_edges (
      version_id uuid NOT NULL REFERENCES dataset_versions (id) ON DELETE CASCADE,
      chunk integer NOT NULL,
      hits bytea NOT NULL,
      PRIMARY KEY (version_id, chunk)
    );
    ALTER TABLE knn_edges ALTER COLUMN hits SET STORAGE EXTERNAL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('knn_edges');
}
