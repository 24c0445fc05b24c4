import type { Db } from '../db/connection';
import { beginSnapshotTask, commitClone, commitRestore, takeSnapshotOnce } from '../services/snapshots';
import type { SnapshotCloneInput, SnapshotRestoreInput } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

/**
 * Snapshot work that runs in workflows (services/snapshots.ts): the automatic snapshots (at a dataset's first index
 * and of a clone), and the ends of restores and clones. Each is safe to repeat.
 */
export function createSnapshotActivities(deps: { db: Db }) {
  const { db } = deps;
  return heartbeating({
    /** The snapshot a dataset's first index leaves (reason `creation`). */
    takeCreationSnapshot: (input: { datasetId: string; snapshotId: string }) =>
      takeSnapshotOnce(db, activityLiveness(), { datasetId: input.datasetId, reason: 'creation', snapshotId: input.snapshotId, datasetStatus: 'READY' }),
    beginSnapshotTask: (ref: { taskId: string; message: string }) => beginSnapshotTask(db, ref),
    commitRestore: (input: SnapshotRestoreInput) => commitRestore(db, input),
    commitClone: (input: SnapshotCloneInput) => commitClone(db, activityLiveness(), input),
  });
}
