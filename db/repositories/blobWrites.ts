import type { Knex } from 'knex';
import type { Db } from '../connection';
import type { TaskType } from '../models';
import { ACTIVE_TASK_STATUSES } from '../../lib/datasetStates';

/**
 * The blob release lock orders blob writers against the storage collector (docs/decisions.md, "Blob
 * writes and the collector"): a writer takes it shared in the short transaction that announces its
 * write (a `blob_writes` row, or a task that stores blobs becoming active); the collector takes it
 * exclusive while it checks a batch of blobs and removes the unused ones. So either the announcement
 * committed first and the collector sees it, or the writer waits until the removal is done and then
 * finds the blob absent and stores it again.
 */
const lock = (trx: Db, mode: 'shared' | 'exclusive') =>
  trx.raw(`SELECT ${mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock'}(hashtext('blob_release'))`);

/** Takes the blob release lock shared in the caller's transaction (which makes a blob-storing task active). */
export async function announceBlobWriter(trx: Db): Promise<void> {
  await lock(trx, 'shared');
}

/** Registers `writer`'s coming writes of the blobs `sha256s`; to be forgotten once the rows naming them committed. */
export async function registerBlobWrites(db: Db, writer: string, sha256s: string[]): Promise<void> {
  if (sha256s.length === 0) return;
  await db.transaction(async (trx) => {
    await lock(trx, 'shared');
    await trx('blob_writes').insert([...new Set(sha256s)].map((sha256) => ({ sha256, writer }))).onConflict(['sha256', 'writer']).ignore();
  });
}

export async function forgetBlobWrites(db: Db, writer: string): Promise<void> {
  await db('blob_writes').where({ writer }).delete();
}

/** Forgets registrations older than `before`: their writers died (a live one commits its row within minutes). */
export async function forgetStaleBlobWrites(db: Db, before: Date): Promise<void> {
  await db('blob_writes').where('registered_at', '<', before).delete();
}

/** Runs `release` in a transaction holding the blob release lock exclusive (writers wait until it ends). */
export function withBlobReleaseLock<T>(db: Db, release: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await lock(trx, 'exclusive');
    return release(trx);
  });
}

/** Which of the blobs `sha256s` a registered writer is storing. */
export async function blobsBeingWritten(db: Db, sha256s: string[]): Promise<Set<string>> {
  if (sha256s.length === 0) return new Set();
  const written: string[] = await db('blob_writes').whereRaw('sha256 = ANY(?::text[])', [sha256s]).distinct().pluck('sha256');
  return new Set(written);
}

/** Whether a task of one of `types` (those that store blobs before the rows naming them, or read blobs their input names) runs. */
export async function blobWritersRunning(db: Db, types: readonly TaskType[]): Promise<boolean> {
  const row = await db('tasks').whereIn('status', ACTIVE_TASK_STATUSES).whereIn('task_type', types).first('task_id');
  return row !== undefined;
}
