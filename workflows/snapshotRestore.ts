import { CancellationScope } from '@temporalio/workflow';
import { snapshots, versions } from './activityProxies';
import type { SnapshotRestoreInput } from './contracts';
import { runTask } from './runTask';

/**
 * SNAPSHOT_RESTORE: the dataset is READ ONLY (claimed by the request) and keeps answering reads from
 * its current head while the snapshot's frozen version is copied into a new one; the switch to the
 * copy is one transaction. A failure leaves the dataset as it was.
 */
export async function snapshotRestoreWorkflow(input: SnapshotRestoreInput): Promise<void> {
  await runTask('SNAPSHOT_RESTORE', input, async () => {
    await snapshots.beginSnapshotTask({ taskId: input.taskId, message: 'Copying the snapshot' });
    await versions.copyDatasetVersion({ sourceVersionId: input.sourceVersionId, targetDatasetId: input.datasetId, versionId: input.versionId });
    await CancellationScope.nonCancellable(() => snapshots.commitRestore(input));
  });
}
