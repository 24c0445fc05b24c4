import type { Knex } from 'knex';

/**
 * Blob writes in flight: a writer that stores a blob before the row naming it commits (an upload, a
 * search anchor, an archive or metadata file a task reads) registers the blob's hash here first, under
 * the blob release lock, and forgets it once its row committed; the storage collector releases no
 * registered blob. A registration older than a day is a writer that died, and is ignored.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE blob_writes (
      sha256 text NOT NULL,
      writer uuid NOT NULL,
      registered_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (sha256, writer)
    );
    CREATE INDEX blob_writes_writer ON blob_writes (writer);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE blob_writes');
}
