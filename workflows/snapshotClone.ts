import { CancellationScope } from '@temporalio/workflow';
import { snapshots, versions } from './activityProxies';
import type { SnapshotCloneInput } from './contracts';
import { runTask } from './runTask';

/**
 * SNAPSHOT_CLONE: the new dataset (INDEXING, made by the request) receives a copy of the snapshot's
 * frozen version and a snapshot of its own, then is ready. The source dataset is never written.
 */
export async function snapshotCloneWorkflow(input: SnapshotCloneInput): Promise<void> {
  await runTask('SNAPSHOT_CLONE', input, async () => {
    await snapshots.beginSnapshotTask({ taskId: input.taskId, message: 'Copying the snapshot' });
    await versions.copyDatasetVersion({ sourceVersionId: input.sourceVersionId, targetDatasetId: input.datasetId, versionId: input.versionId });
    await CancellationScope.nonCancellable(() => snapshots.commitClone(input));
  });
}
