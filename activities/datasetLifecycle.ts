import type { Db } from '../db/connection';
import { updateTaskProgress } from '../db/repositories/tasks';
import type { DatasetStatus } from '../lib/datasetStates';
import type { ImageEncoderInfo } from '../lib/ml/imageEncoder';
import { beginDatasetCreation, beginReindex, commitDatasetCreation, commitReindex, completeMediaAddition } from '../services/datasetIndexing';
import { endBatch, TASK_TYPE_REGISTRY, type Ending } from '../services/taskTypes';
import type { TaskRef } from './progress';

/**
 * The starts and ends of the workflows that index a dataset (services/datasetIndexing): creation, a
 * media batch and a reindex. A failure never leaves the dataset in a transitional status.
 */
export function createDatasetLifecycleActivities(deps: { db: Db; encoder: ImageEncoderInfo }) {
  const { db } = deps;
  const embeddingConfig = { model: deps.encoder.modelId, dim: deps.encoder.dim };
  return {
    beginDatasetCreation: (ref: TaskRef) => beginDatasetCreation(db, ref),
    commitDatasetCreation: (ref: TaskRef) => commitDatasetCreation(db, ref, embeddingConfig),

    async failDatasetTask(input: TaskRef & Ending): Promise<void> {
      await TASK_TYPE_REGISTRY.DATASET_CREATION.endUnfinished(db, input, input);
    },

    /** The dataset is already READ ONLY (claimed by the request); the task starts running. */
    async beginTask(ref: TaskRef & { message: string }): Promise<void> {
      await updateTaskProgress(db, ref.taskId, { status: 'RUNNING', statusMessage: ref.message, phase: 'starting' });
    },

    completeMediaAddition: (ref: TaskRef & { batchId: string; missing: string[] }) => completeMediaAddition(db, ref),
    beginReindex: (ref: TaskRef) => beginReindex(db, ref),
    commitReindex: (ref: TaskRef) => commitReindex(db, ref, embeddingConfig),

    /** A failed or aborted batch or reindex (see endBatch). */
    async failBatchTask(input: TaskRef & { batchId: string; previousStatus: DatasetStatus; aborted: boolean; message: string }): Promise<void> {
      await endBatch(db, input, input);
    },
  };
}
