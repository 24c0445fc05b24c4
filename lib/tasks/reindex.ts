import { defineTask, type TaskRef } from './defineTask';
import { INDEXING_STAGES } from './indexingStages';

/** A PARTIAL INDEX dataset: everything it received indexed, then re-clustered and re-scored as a whole; it ends READY. */
export const reindexTask = defineTask({
  type: 'REINDEX',
  operation: { name: 'reindex', from: ['PARTIAL INDEX'], claims: 'READ ONLY' },
  workflow: 'reindexWorkflow',
  stages: { index: INDEXING_STAGES.index, analyze: INDEXING_STAGES.analyze },
  storesBlobs: true,
  holdsBatchSlot: true,
  // A batch of its own (its task id): back to PARTIAL INDEX, where every reindex starts.
  endsUnfinished: (input: TaskRef) => [{ kind: 'batch', datasetId: input.datasetId, batchId: input.taskId, previousStatus: 'PARTIAL INDEX' }],
});
