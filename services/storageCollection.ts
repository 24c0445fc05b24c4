import type { Client } from '@temporalio/client';
import type { Db } from '../db/connection';
import { blobsBeingWritten, blobWritersRunning, forgetStaleBlobWrites, withBlobReleaseLock } from '../db/repositories/blobWrites';
import {
  blobsAwaitingEmbedding,
  blobsInUse,
  deletedDatasetIds,
  expiredExportArchives,
  forgetCandidates,
  markExportArchivesReleased,
  purgeDeletedDataset,
  purgeDeletedSnapshots,
  releaseCandidates,
  unusedVectorPoints,
  vectorSpacesInUse,
} from '../db/repositories/storageRelease';
import { dropUnusedVersions } from '../db/repositories/versions';
import { blobKey, exportArchiveKey, MODEL_INPUTS, type ObjectStore } from '../lib/storage/objectStore';
import { isCollectionOfSpace, isMediaCollectionOfSpace, type VectorStore } from '../lib/vectors/vectorStore';
import { collectNowSignal, storageCollectionWorkflowId } from '../workflows/contracts';
import { BLOB_STORING_TASK_TYPES } from './taskTypes';

/** How long deleted snapshots and finished exports' archives are kept, and how often the collector runs (lib/config.ts). */
export interface CollectionSettings {
  snapshotRetentionDays: number;
  exportRetentionDays: number;
  intervalMinutes: number;
}

interface CollectionDeps {
  db: Db;
  store: ObjectStore;
  vectors: VectorStore;
  settings: CollectionSettings;
  /** Called after every batch, so a long step shows it is alive (an activity heartbeat). */
  heartbeat: () => void;
}

/** Rows one batch reads; objects one batch removes at once. */
const BATCH = 1000;
const REMOVALS_IN_FLIGHT = 16;

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

/** Runs `work` on batches from `next` until it returns none; answers how many items were worked on. */
async function inBatches<T>(deps: Pick<CollectionDeps, 'heartbeat'>, next: () => Promise<T[]>, work: (batch: T[]) => Promise<void>): Promise<number> {
  let done = 0;
  for (let batch = await next(); batch.length > 0; batch = await next()) {
    await work(batch);
    done += batch.length;
    deps.heartbeat();
  }
  return done;
}

async function removeObjects(store: ObjectStore, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += REMOVALS_IN_FLIGHT) {
    await Promise.all(keys.slice(i, i + REMOVALS_IN_FLIGHT).map((key) => store.delete(key)));
  }
}

/** Purges every deleted dataset (rows by cascade), recording what its rows used for the release steps. */
export function purgeDeletedDatasets(deps: CollectionDeps): Promise<number> {
  return inBatches(
    deps,
    () => deletedDatasetIds(deps.db, 10),
    async (ids) => {
      for (const id of ids) await purgeDeletedDataset(deps.db, id, exportArchiveKey);
    },
  );
}

/**
 * Hard-deletes snapshots deleted more than SNAPSHOT_RETENTION_DAYS ago and, in the same transaction,
 * the versions only they kept (so a crash never leaves a version nothing points at).
 */
export function purgeExpiredSnapshots(deps: CollectionDeps): Promise<number> {
  return inBatches(
    deps,
    () =>
      deps.db.transaction(async (trx) => {
        const datasetIds = await purgeDeletedSnapshots(trx, daysAgo(deps.settings.snapshotRetentionDays), 100);
        for (const datasetId of datasetIds) await dropUnusedVersions(trx, datasetId);
        return datasetIds;
      }),
    async () => undefined,
  );
}

/** Removes the archives of exports finished more than EXPORT_RETENTION_DAYS ago; their status then answers that they expired. */
export function releaseExpiredExportArchives(deps: CollectionDeps): Promise<number> {
  return inBatches(
    deps,
    () => expiredExportArchives(deps.db, daysAgo(deps.settings.exportRetentionDays), BATCH),
    async (exports) => {
      await removeObjects(deps.store, exports.map((row) => exportArchiveKey(row.taskId, row.fileName)));
      await markExportArchivesReleased(deps.db, exports.map((row) => row.taskId));
    },
  );
}

/** A registration older than this is a writer that died: writers forget theirs once their rows committed. */
const BLOB_WRITE_HORIZON_DAYS = 1;
/** Blobs checked and removed under one hold of the blob release lock, which writers wait for. */
const BLOB_BATCH = 200;

/**
 * Removes candidate blobs no live row names (blobs are shared by content across datasets, versions and
 * clones, so each is checked against all of them) and no writer is storing, and forgets the candidates.
 * Each batch is checked and removed under the blob release lock (db/repositories/blobWrites.ts), so a
 * writer either announced itself before the check or stores its blob after the removal. A blob a
 * registered writer is storing stays a candidate for the next run (the writer may fail before its row
 * commits). Waits for the next run while a task that stores blobs runs.
 */
export async function releaseBlobs(deps: CollectionDeps): Promise<number> {
  await forgetStaleBlobWrites(deps.db, daysAgo(BLOB_WRITE_HORIZON_DAYS));
  let checked = 0;
  for (let after: string | null = null; ; ) {
    const sha256s = await releaseCandidates(deps.db, 'blob', BLOB_BATCH, after);
    if (sha256s.length === 0) return checked;
    const released = await withBlobReleaseLock(deps.db, async (trx) => {
      if (await blobWritersRunning(trx, BLOB_STORING_TASK_TYPES)) return false;
      const used = await blobsInUse(trx, sha256s);
      const writing = await blobsBeingWritten(trx, sha256s);
      await removeObjects(deps.store, sha256s.filter((sha256) => !used.has(sha256) && !writing.has(sha256)).map(blobKey));
      await forgetCandidates(trx, 'blob', sha256s.filter((sha256) => !writing.has(sha256)));
      return true;
    });
    if (!released) return checked;
    checked += sha256s.length;
    after = sha256s[sha256s.length - 1];
    deps.heartbeat();
  }
}

/** The image blob a prepared model input was made from: its key ends in the blob's sha256 (modelInputKey). */
const blobOfModelInput = (key: string) => /\/([0-9a-f]{64})$/.exec(key)?.[1];

/** Removes the model inputs of `keys` no media waiting for its embedding needs; undefined while a blob-storing task runs. */
function releaseModelInputPage(deps: CollectionDeps, keys: string[]): Promise<number | undefined> {
  return withBlobReleaseLock(deps.db, async (trx) => {
    if (await blobWritersRunning(trx, BLOB_STORING_TASK_TYPES)) return undefined;
    const awaiting = await blobsAwaitingEmbedding(trx, keys.map((key) => blobOfModelInput(key)!));
    const unused = keys.filter((key) => !awaiting.has(blobOfModelInput(key)!));
    await removeObjects(deps.store, unused);
    return unused.length;
  });
}

/**
 * Removes prepared model inputs (`model-inputs/…`, made by the ingest for the embedding, which removes
 * them) that nothing will read: left by an interrupted ingest, or of a blob that was released. An input
 * stays while a media item naming its blob is not embedded yet (a reindex embeds it). Only runs while no
 * task that stores blobs runs (they write and read inputs), under the blob release lock. Answers how
 * many it removed.
 */
export async function releaseModelInputs(deps: CollectionDeps): Promise<number> {
  let removed = 0;
  const page: string[] = [];
  const release = async () => {
    const done = await releaseModelInputPage(deps, page.splice(0));
    deps.heartbeat();
    if (done === undefined) return false;
    removed += done;
    return true;
  };
  for await (const key of deps.store.list(MODEL_INPUTS)) {
    // Skips the temporary file of a put in progress.
    if (!blobOfModelInput(key)) continue;
    page.push(key);
    if (page.length === BLOB_BATCH && !(await release())) return removed;
  }
  if (page.length > 0) await release();
  return removed;
}

/**
 * Deletes the vectors of media that left every version of their lineage (the lineage's collections
 * stay: other media use them): from the space's image collection and its CLIP collections, which are
 * keyed by media id. Forgets the candidates.
 */
export function releaseVectorPoints(deps: CollectionDeps): Promise<number> {
  return inBatches(
    deps,
    () => releaseCandidates(deps.db, 'vector_point', BATCH),
    async (keys) => {
      const unused = new Map<string, string[]>();
      for (const { spaceId, mediaId } of await unusedVectorPoints(deps.db, keys)) {
        const mediaIds = unused.get(spaceId);
        if (mediaIds) mediaIds.push(mediaId);
        else unused.set(spaceId, [mediaId]);
      }
      if (unused.size > 0) {
        const collections = await deps.vectors.listCollections();
        for (const [spaceId, mediaIds] of unused) {
          for (const name of collections.filter((collection) => isMediaCollectionOfSpace(collection, spaceId))) await deps.vectors.delete(name, mediaIds);
        }
      }
      await forgetCandidates(deps.db, 'vector_point', keys);
    },
  );
}

/** Drops the collections of candidate vector spaces that no version (of any dataset, a clone's included) reads any more. */
export function releaseVectorSpaces(deps: CollectionDeps): Promise<number> {
  return inBatches(
    deps,
    () => releaseCandidates(deps.db, 'vector_space', 100),
    async (spaceIds) => {
      const used = await vectorSpacesInUse(deps.db, spaceIds);
      const unused = spaceIds.filter((spaceId) => !used.has(spaceId));
      if (unused.length > 0) {
        const collections = await deps.vectors.listCollections();
        for (const name of collections.filter((collection) => unused.some((spaceId) => isCollectionOfSpace(collection, spaceId)))) {
          await deps.vectors.dropCollection(name);
        }
      }
      await forgetCandidates(deps.db, 'vector_space', spaceIds);
    },
  );
}

/** Removes the archives of purged datasets' exports. */
export function releaseExportArchives(deps: CollectionDeps): Promise<number> {
  return inBatches(
    deps,
    () => releaseCandidates(deps.db, 'export_archive', BATCH),
    async (keys) => {
      await removeObjects(deps.store, keys);
      await forgetCandidates(deps.db, 'export_archive', keys);
    },
  );
}

/**
 * Makes sure the storage collector runs, and asks it to run now: starts its workflow if it is not
 * running (first start, or after it was terminated), else signals it.
 */
export async function requestStorageCollection(deps: { temporal: Client; taskQueue: string }): Promise<void> {
  await deps.temporal.workflow.signalWithStart('storageCollectionWorkflow', {
    taskQueue: deps.taskQueue,
    workflowId: storageCollectionWorkflowId(deps.taskQueue),
    args: [],
    signal: collectNowSignal,
    signalArgs: [],
  });
}
