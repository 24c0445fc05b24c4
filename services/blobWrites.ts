import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import { forgetBlobWrites, registerBlobWrites } from '../db/repositories/blobWrites';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import type { StagedFile } from '../lib/storage/staging';

/**
 * Moves staged files into the content-addressed store and runs `commit`, which writes what names them
 * (rows, or a task whose input does). The blobs are registered as being written first and forgotten
 * once `commit` ended, so the storage collector cannot release one of them (it may already be stored:
 * the put then keeps it) in between.
 */
export async function storeBlobs<T>(deps: { db: Db; store: ObjectStore }, files: Array<Pick<StagedFile, 'sha256' | 'path'>>, commit: () => Promise<T>): Promise<T> {
  const writer = randomUUID();
  await registerBlobWrites(deps.db, writer, files.map((file) => file.sha256));
  try {
    for (const file of files) await deps.store.putFile(blobKey(file.sha256), file.path);
    return await commit();
  } finally {
    // Only tidiness: a registration left behind delays the release of these blobs by a day (the collector
    // then forgets it), which must not turn a stored upload into an error.
    await forgetBlobWrites(deps.db, writer).catch(() => undefined);
  }
}
