import type { Db } from '../db/connection';
import { commitIndexedDataset, requireDatasetTransition, updateDatasetCounts } from '../db/repositories/datasets';
import { countBatchMedia, mediaCounts } from '../db/repositories/media';
import { headVersion } from '../db/repositories/versions';
import { updateTaskProgress } from '../db/repositories/tasks';
import { TRANSITIONS, type DatasetStatus } from '../lib/datasetStates';
import type { ImageEncoderInfo } from '../lib/ml/imageEncoder';
import { endBatch, TASK_TYPE_REGISTRY, type Ending } from '../services/taskTypes';
import type { TaskRef } from './progress';

async function headCounts(db: Db, datasetId: string) {
  return mediaCounts(db, (await headVersion(db, datasetId)).id);
}

/**
 * Status changes of a dataset and its task at the start and end of the workflows that index it:
 * creation (→ INDEXING → READY), a media batch (READ ONLY → PARTIAL INDEX) and a reindex
 * (READ ONLY → INDEXING → READY). A failure never leaves the dataset in a transitional status.
 */
export function createDatasetLifecycleActivities(deps: { db: Db; encoder: ImageEncoderInfo }) {
  const { db } = deps;
  const embeddingConfig = { model: deps.encoder.modelId, dim: deps.encoder.dim };

  /** A fully indexed dataset: READY with fresh counts, and its task COMPLETED. */
  async function commitReady(
    ref: TaskRef,
    transition: { from: readonly DatasetStatus[]; to: DatasetStatus },
    describe: (counts: { n_images: number; n_videos: number }) => string,
  ) {
    await db.transaction(async (trx) => {
      const counts = await headCounts(trx, ref.datasetId);
      await commitIndexedDataset(trx, ref.datasetId, transition, { counts, embeddingConfig });
      await updateTaskProgress(trx, ref.taskId, { status: 'COMPLETED', statusMessage: describe(counts), progressPercentage: 100, phase: 'done' });
    });
  }

  return {
    async beginDatasetCreation(ref: TaskRef): Promise<void> {
      await db.transaction(async (trx) => {
        await updateTaskProgress(trx, ref.taskId, { status: 'RUNNING', statusMessage: 'Processing uploaded files', phase: 'starting' });
        await requireDatasetTransition(trx, ref.datasetId, TRANSITIONS.creationStarted, { error_message: null });
      });
    },

    async commitDatasetCreation(ref: TaskRef): Promise<void> {
      await commitReady(ref, TRANSITIONS.creationCommitted, (counts) => `Dataset ready: ${counts.n_images} images, ${counts.n_videos} videos`);
    },

    async failDatasetTask(input: TaskRef & Ending): Promise<void> {
      await TASK_TYPE_REGISTRY.DATASET_CREATION.endUnfinished(db, input, input);
    },

    /** The dataset is already READ ONLY (claimed by the request); the task starts running. */
    async beginTask(ref: TaskRef & { message: string }): Promise<void> {
      await updateTaskProgress(db, ref.taskId, { status: 'RUNNING', statusMessage: ref.message, phase: 'starting' });
    },

    /** The batch is processed and visible: READ ONLY → PARTIAL INDEX until a reindex re-clusters. */
    async completeMediaAddition(ref: TaskRef & { batchId: string; missing: string[] }): Promise<void> {
      await db.transaction(async (trx) => {
        const version = await headVersion(trx, ref.datasetId);
        const added = await countBatchMedia(trx, version.id, ref.batchId);
        await requireDatasetTransition(trx, ref.datasetId, TRANSITIONS.batchCompleted, { progress: 100 });
        await updateDatasetCounts(trx, ref.datasetId, await mediaCounts(trx, version.id));
        await updateTaskProgress(trx, ref.taskId, {
          status: 'COMPLETED',
          statusMessage:
            `Added ${added} media; searchable now, re-clustered at the next reindex` +
            (ref.missing.length ? `. Listed but missing: ${ref.missing.join(', ')}` : ''),
          progressPercentage: 100,
          phase: 'done',
        });
      });
    },

    async beginReindex(ref: TaskRef): Promise<void> {
      await db.transaction(async (trx) => {
        await requireDatasetTransition(trx, ref.datasetId, TRANSITIONS.reindexStarted);
        await updateTaskProgress(trx, ref.taskId, { status: 'RUNNING', statusMessage: 'Re-clustering the whole dataset', phase: 'reindex' });
      });
    },

    async commitReindex(ref: TaskRef): Promise<void> {
      await commitReady(ref, TRANSITIONS.reindexCommitted, (counts) => `Dataset reindexed: ${counts.n_images} images, ${counts.n_videos} videos`);
    },

    /** A failed or aborted batch or reindex (see endBatch). */
    async failBatchTask(input: TaskRef & { batchId: string; previousStatus: DatasetStatus; aborted: boolean; message: string }): Promise<void> {
      await endBatch(db, input, input);
    },
  };
}
