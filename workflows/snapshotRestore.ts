import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import { snapshots, versions } from './activityProxies';
import type { SnapshotRestoreInput } from './contracts';
import { failureMessage } from './failures';

/**
 * SNAPSHOT_RESTORE: the dataset is READ ONLY (claimed by the request) and keeps answering reads from
 * its current head while the snapshot's frozen version is copied into a new one; the switch to the
 * copy is one transaction. A failure leaves the dataset as it was.
 */
export async function snapshotRestoreWorkflow(input: SnapshotRestoreInput): Promise<void> {
  try {
    await snapshots.beginSnapshotTask({ taskId: input.taskId, message: 'Copying the snapshot' });
    await versions.copyDatasetVersion({ sourceVersionId: input.sourceVersionId, targetDatasetId: input.datasetId, versionId: input.versionId });
    await CancellationScope.nonCancellable(() => snapshots.commitRestore(input));
  } catch (error) {
    const aborted = isCancellation(error);
    const message = aborted ? 'Aborted by user' : failureMessage(error);
    await CancellationScope.nonCancellable(() => snapshots.failRestore({ ...input, aborted, message }));
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'SnapshotRestoreFailed', message, nonRetryable: true });
  }
}
