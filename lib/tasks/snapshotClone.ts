import { DATASET_STATUSES, TRANSITIONS } from '../datasetTransitions';
import { defineTask, type TaskRef } from './defineTask';

/** A snapshot's frozen version copied into a new dataset (INDEXING until the copy is done). */
export const snapshotCloneTask = defineTask({
  type: 'SNAPSHOT_CLONE',
  // A clone reads a frozen snapshot: the source's status does not matter (its task runs on the new dataset).
  operation: { name: 'clone', from: DATASET_STATUSES },
  workflow: 'snapshotCloneWorkflow',
  // The clone ERROR with the reason; the snapshot it was made from is untouched.
  endsUnfinished: (input: TaskRef, ending) => [
    { kind: 'dataset', datasetId: input.datasetId, transition: TRANSITIONS.cloneFailed, errorMessage: ending.message },
  ],
});
