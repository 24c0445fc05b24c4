import type { DatasetStatus } from '../datasetTransitions';
import { claimReleased, defineTask, type TaskRef } from './defineTask';

const operation = { name: 'restore', from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY' } as const;

/** A snapshot's frozen version copied into a new head of the dataset, which keeps answering reads meanwhile. */
export const snapshotRestoreTask = defineTask({
  type: 'SNAPSHOT_RESTORE',
  operation,
  workflow: 'snapshotRestoreWorkflow',
  // The dataset as it was before the restore; a half-made copy goes.
  endsUnfinished: (input: TaskRef & { snapshotId: string; previousStatus: DatasetStatus }) => [
    { kind: 'dataset', datasetId: input.datasetId, transition: claimReleased(operation, input.previousStatus) },
    { kind: 'restore', datasetId: input.datasetId, snapshotId: input.snapshotId },
  ],
});
