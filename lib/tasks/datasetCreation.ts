import { TRANSITIONS } from '../datasetTransitions';
import { defineTask, type TaskRef } from './defineTask';
import { INDEXING_STAGES } from './indexingStages';

/** The uploaded files of a new dataset indexed, analysed and snapshotted; the one task users may abort and retry. */
export const datasetCreationTask = defineTask({
  type: 'DATASET_CREATION',
  operation: { name: 'process_files', from: ['UPLOADING'], claims: 'INDEXING' },
  workflow: 'datasetCreationWorkflow',
  stages: { index: INDEXING_STAGES.index, analyze: INDEXING_STAGES.analyze },
  abortable: true,
  // Back to INDEXING from where the failed run left it; ERROR again if the new run cannot start.
  retry: { restarts: TRANSITIONS.creationRetried, notStarted: TRANSITIONS.creationRetryNotStarted },
  storesBlobs: true,
  // The dataset ERROR with the reason (a retry starts it again).
  endsUnfinished: (input: TaskRef, ending) => [
    { kind: 'dataset', datasetId: input.datasetId, transition: TRANSITIONS.creationFailed, errorMessage: ending.message },
  ],
});
