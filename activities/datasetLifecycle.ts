import type { Db } from '../db/connection';
import { transitionDatasetStatus } from '../db/queries/datasets';
import { updateTaskProgress } from '../db/queries/tasks';
import type { ImageEncoderInfo } from '../lib/ml/imageEncoder';
import type { TaskRef } from './progress';

/** Status changes of a dataset and its task at the start and end of an indexing workflow. */
export function createDatasetLifecycleActivities(deps: { db: Db; encoder: ImageEncoderInfo }) {
  const { db } = deps;
  return {
    async beginDatasetCreation(ref: TaskRef): Promise<void> {
      await db.transaction(async (trx) => {
        await updateTaskProgress(trx, ref.taskId, { status: 'RUNNING', statusMessage: 'Processing uploaded files', phase: 'starting' });
        await trx('datasets').where({ id: ref.datasetId }).update({ status_new: 'INDEXING', error_message: null, updated_at: trx.fn.now() });
      });
    },

    async commitDatasetCreation(ref: TaskRef): Promise<void> {
      await db.transaction(async (trx) => {
        const counts = await trx('media')
          .where({ dataset_id: ref.datasetId })
          .select(
            trx.raw(`count(*) filter (where kind = 'IMAGE')::int as n_images`),
            trx.raw(`count(*) filter (where kind = 'VIDEO')::int as n_videos`),
          )
          .first();
        await trx('datasets')
          .where({ id: ref.datasetId })
          .update({
            status_new: 'READY',
            progress: 100,
            n_images: counts.n_images,
            n_videos: counts.n_videos,
            embedding_config: JSON.stringify({ model: deps.encoder.modelId, dim: deps.encoder.dim }),
            error_message: null,
            updated_at: trx.fn.now(),
          });
        await updateTaskProgress(trx, ref.taskId, {
          status: 'COMPLETED',
          statusMessage: `Dataset ready: ${counts.n_images} images, ${counts.n_videos} videos`,
          progressPercentage: 100,
          phase: 'done',
        });
      });
    },

    async failDatasetTask(input: TaskRef & { aborted: boolean; message: string }): Promise<void> {
      await db.transaction(async (trx) => {
        await updateTaskProgress(trx, input.taskId, {
          status: input.aborted ? 'ABORTED' : 'FAILED',
          statusMessage: input.aborted ? 'Aborted' : 'Failed',
          errorMessage: input.message,
        });
        await transitionDatasetStatus(trx, input.datasetId, ['INDEXING', 'UPLOADING'], 'ERROR', { error_message: input.message });
      });
    },
  };
}
