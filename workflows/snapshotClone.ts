import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import { snapshots, versions } from './activityProxies';
import type { SnapshotCloneInput } from './contracts';
import { failureMessage } from './failures';

/**
 * SNAPSHOT_CLONE: the new dataset (INDEXING, made by the request) receives a copy of the snapshot's
 * frozen version and a snapshot of its own, then is ready. The source dataset is never written.
 */
export async function snapshotCloneWorkflow(input: SnapshotCloneInput): Promise<void> {
  try {
    await snapshots.beginSnapshotTask({ taskId: input.taskId, message: 'Copying the snapshot' });
    await versions.copyDatasetVersion({ sourceVersionId: input.sourceVersionId, targetDatasetId: input.datasetId, versionId: input.versionId });
    await CancellationScope.nonCancellable(() => snapshots.commitClone(input));
  } catch (error) {
    const aborted = isCancellation(error);
    const message = aborted ? 'Aborted by user' : failureMessage(error);
    await CancellationScope.nonCancellable(() => snapshots.failClone({ ...input, aborted, message }));
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'SnapshotCloneFailed', message, nonRetryable: true });
  }
}
