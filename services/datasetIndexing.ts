import type { Db } from '../db/connection';
import { commitIndexedDataset, requireDatasetTransition, updateDatasetCounts } from '../db/repositories/datasets';
import { countBatchMedia, mediaCounts } from '../db/repositories/media';
import { updateTaskProgress } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import { TRANSITIONS, type DatasetStatus } from '../lib/datasetStates';
import { commitTaskEnd, completeTask, markTaskCompleted } from './taskTypes';

/**
 * The status changes at the start and end of the workflows that index a dataset: creation
 * (→ INDEXING → READY), a media batch (READ ONLY → PARTIAL INDEX) and a reindex (READ ONLY →
 * INDEXING → READY), each one transaction. Their failures are the task registry's (taskTypes).
 */

interface TaskRef {
  taskId: string;
  datasetId: string;
}

/** What the image encoder of the worker that indexed the dataset is, recorded with it. */
export interface EmbeddingConfig {
  model: string;
  dim: number;
}

async function headCounts(db: Db, datasetId: string) {
  return mediaCounts(db, (await headVersion(db, datasetId)).id);
}

/** A fully indexed dataset: READY with fresh counts and its embedding config, and its task COMPLETED. */
async function commitReady(
  db: Db,
  ref: TaskRef,
  embeddingConfig: EmbeddingConfig,
  transition: { from: readonly DatasetStatus[]; to: DatasetStatus },
  describe: (counts: { n_images: number; n_videos: number }) => string,
): Promise<void> {
  await commitTaskEnd(db, ref.datasetId, async (trx) => {
    const counts = await headCounts(trx, ref.datasetId);
    await commitIndexedDataset(trx, ref.datasetId, transition, { counts, embeddingConfig });
    await markTaskCompleted(trx, ref.taskId, describe(counts));
  });
}

export async function beginDatasetCreation(db: Db, ref: TaskRef): Promise<void> {
  await db.transaction(async (trx) => {
    await updateTaskProgress(trx, ref.taskId, { status: 'RUNNING', statusMessage: 'Processing uploaded files', phase: 'starting' });
    await requireDatasetTransition(trx, ref.datasetId, TRANSITIONS.creationStarted, { error_message: null });
  });
}

export function commitDatasetCreation(db: Db, ref: TaskRef, embeddingConfig: EmbeddingConfig): Promise<void> {
  return commitReady(db, ref, embeddingConfig, TRANSITIONS.creationCommitted, (counts) => `Dataset ready: ${counts.n_images} images, ${counts.n_videos} videos`);
}

/** The dataset is already READ ONLY (claimed by the request); the task starts running. */
export async function beginTask(db: Db, ref: TaskRef & { message: string }): Promise<void> {
  await updateTaskProgress(db, ref.taskId, { status: 'RUNNING', statusMessage: ref.message, phase: 'starting' });
}

/** The batch is processed and visible: READ ONLY → PARTIAL INDEX until a reindex re-clusters. */
export async function completeMediaAddition(db: Db, ref: TaskRef & { batchId: string; missing: string[] }): Promise<void> {
  await commitTaskEnd(db, ref.datasetId, async (trx) => {
    const version = await headVersion(trx, ref.datasetId);
    const added = await countBatchMedia(trx, version.id, ref.batchId);
    const counts = await mediaCounts(trx, version.id);
    await updateDatasetCounts(trx, ref.datasetId, counts);
    const message =
      `Added ${added} media; searchable now, re-clustered at the next reindex` + (ref.missing.length ? `. Listed but missing: ${ref.missing.join(', ')}` : '');
    await completeTask(trx, ref, TRANSITIONS.batchCompleted, message, { progress: 100 });
    return { addedShare: added / Math.max(1, counts.n_images + counts.n_videos) };
  });
}

export async function beginReindex(db: Db, ref: TaskRef): Promise<void> {
  await db.transaction(async (trx) => {
    await requireDatasetTransition(trx, ref.datasetId, TRANSITIONS.reindexStarted);
    await updateTaskProgress(trx, ref.taskId, { status: 'RUNNING', statusMessage: 'Re-clustering the whole dataset', phase: 'reindex' });
  });
}

export function commitReindex(db: Db, ref: TaskRef, embeddingConfig: EmbeddingConfig): Promise<void> {
  return commitReady(db, ref, embeddingConfig, TRANSITIONS.reindexCommitted, (counts) => `Dataset reindexed: ${counts.n_images} images, ${counts.n_videos} videos`);
}
