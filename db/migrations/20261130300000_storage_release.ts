import type { Knex } from 'knex';

/**
 * Deletion and the release of storage: a deleted dataset is hidden at once (`deleted_at`) and purged
 * by the storage collector; what a purge or a dropped version may have left unused (content-addressed
 * blobs, vector spaces, export archives) waits in `storage_release_candidates` until the collector
 * has checked and released it; an export whose archive expired keeps its task row with `archive_released_at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE datasets ADD COLUMN deleted_at timestamptz;
    CREATE INDEX datasets_deleted ON datasets (deleted_at) WHERE deleted_at IS NOT NULL;
    ALTER TABLE tasks ADD COLUMN archive_released_at timestamptz;
    CREATE INDEX snapshots_deleted ON snapshots (deleted_at) WHERE deleted_at IS NOT NULL;
    CREATE TABLE storage_release_candidates (
      kind text NOT NULL CHECK (kind IN ('blob', 'vector_space', 'export_archive')),
      key text NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (kind, key)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE storage_release_candidates;
    DROP INDEX snapshots_deleted;
    ALTER TABLE tasks DROP COLUMN archive_released_at;
    ALTER TABLE datasets DROP COLUMN deleted_at;
  `);
}
