import type { Db } from '../db/connection';
import type { ImageEncoderInfo } from '../lib/ml/imageEncoder';
import { beginDatasetCreation, beginReindex, beginTask, commitDatasetCreation, commitReindex, completeMediaAddition } from '../services/datasetIndexing';
import type { TaskRef } from '../services/taskProgress';

/**
 * The starts and ends of the workflows that index a dataset (services/datasetIndexing): creation, a
 * media batch and a reindex. A failure ends them through endTaskUnfinished (activities/tasks.ts).
 */
export function createDatasetLifecycleActivities(deps: { db: Db; encoder: ImageEncoderInfo }) {
  const { db } = deps;
  const embeddingConfig = { model: deps.encoder.modelId, dim: deps.encoder.dim };
  return {
    beginDatasetCreation: (ref: TaskRef) => beginDatasetCreation(db, ref),
    commitDatasetCreation: (ref: TaskRef) => commitDatasetCreation(db, ref, embeddingConfig),
    beginTask: (ref: TaskRef & { message: string }) => beginTask(db, ref),
    completeMediaAddition: (ref: TaskRef & { batchId: string; missing: string[] }) => completeMediaAddition(db, ref),
    beginReindex: (ref: TaskRef) => beginReindex(db, ref),
    commitReindex: (ref: TaskRef) => commitReindex(db, ref, embeddingConfig),
  };
}
