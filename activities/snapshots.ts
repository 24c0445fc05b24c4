import { Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { datasetOwner } from '../db/repositories/datasets';
import { hasSnapshotOfReason } from '../db/repositories/snapshots';
import { updateTaskProgress } from '../db/repositories/tasks';
import type { SnapshotStatus } from '../lib/datasetStates';
import { adoptClone, commitRestore, completeClone, takeSnapshot } from '../services/snapshots';
import type { SnapshotCloneInput, SnapshotRestoreInput } from '../workflows/contracts';
import { heartbeating } from './liveness';

/**
 * Snapshot work that runs in workflows: the automatic snapshots (at a dataset's first index and of
 * a clone), and the ends of restores and clones. Each is safe to repeat.
 */
export function createSnapshotActivities(deps: { db: Db }) {
  const { db } = deps;

  /** Takes the dataset's snapshot of `reason` unless it has one: once per dataset. */
  async function takeOnce(datasetId: string, reason: 'creation' | 'clone', snapshotId: string, datasetStatus: SnapshotStatus) {
    if (await hasSnapshotOfReason(db, datasetId, reason)) return;
    const owner = await datasetOwner(db, datasetId);
    const context = Context.current();
    await takeSnapshot(db, { datasetId, reason, datasetStatus, createdBy: owner?.id ?? null, snapshotId, onTable: (table) => context.heartbeat(table) });
  }

  return heartbeating({
    /** The snapshot a dataset's first index leaves (reason `creation`). */
    async takeCreationSnapshot(input: { datasetId: string; snapshotId: string }): Promise<void> {
      await takeOnce(input.datasetId, 'creation', input.snapshotId, 'READY');
    },

    async beginSnapshotTask(ref: { taskId: string; message: string }): Promise<void> {
      await updateTaskProgress(db, ref.taskId, { status: 'RUNNING', statusMessage: ref.message, progressPercentage: 10, phase: 'copy' });
    },

    commitRestore: (input: SnapshotRestoreInput) => commitRestore(db, input),

    /** The copy becomes the clone's head, the clone gets its own snapshot (reason `clone`), and it is ready. */
    async commitClone(input: SnapshotCloneInput): Promise<void> {
      await adoptClone(db, input);
      await takeOnce(input.datasetId, 'clone', input.cloneSnapshotId, input.snapshotStatus);
      await completeClone(db, input);
    },
  });
}
