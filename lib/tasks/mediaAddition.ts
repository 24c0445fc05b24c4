import type { DatasetStatus } from '../datasetTransitions';
import { defineTask, type TaskRef } from './defineTask';
import { INDEXING_STAGES } from './indexingStages';

/** A batch of media added to a READY or PARTIAL INDEX dataset (then PARTIAL INDEX, or READY with auto_reindex). */
export const mediaAdditionTask = defineTask({
  type: 'MEDIA_ADDITION',
  operation: { name: 'add_media', from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY' },
  workflow: 'mediaAdditionWorkflow',
  stages: INDEXING_STAGES,
  storesBlobs: true,
  holdsBatchSlot: true,
  // Back to the status it was claimed from, or PARTIAL INDEX when media of the batch made it in.
  endsUnfinished: (input: TaskRef & { batchId: string; previousStatus: DatasetStatus }) => [
    { kind: 'batch', datasetId: input.datasetId, batchId: input.batchId, previousStatus: input.previousStatus },
  ],
});
