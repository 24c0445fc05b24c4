import { Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { datasetOwner, requireDatasetTransition, updateDatasetCounts } from '../db/repositories/datasets';
import { discardUploadsMissingFromHead } from '../db/repositories/ingestion';
import { mediaCounts } from '../db/repositories/media';
import { hasSnapshotOfReason, markRestoring, setCurrentSnapshot, snapshotViews } from '../db/repositories/snapshots';
import { updateTaskProgress } from '../db/repositories/tasks';
import { dropUnusedVersions, headVersion, setHeadVersion } from '../db/repositories/versions';
import { copyViews, restoreViews } from '../db/repositories/views';
import { cloneCommitted, restoreCommitted, type SnapshotStatus } from '../lib/datasetStates';
import { takeSnapshot } from '../services/snapshots';
import { TASK_TYPE_REGISTRY, type Ending } from '../services/taskTypes';
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

    /** The copied version becomes the head, the restored snapshot the current one; the old head goes. */
    async commitRestore(input: SnapshotRestoreInput): Promise<void> {
      await db.transaction(async (trx) => {
        if ((await headVersion(trx, input.datasetId)).id !== input.versionId) {
          await setHeadVersion(trx, input.datasetId, input.versionId);
          await discardUploadsMissingFromHead(trx, input.datasetId);
        }
        await setCurrentSnapshot(trx, input.datasetId, input.snapshotId);
        await restoreViews(trx, input.datasetId, await snapshotViews(trx, input.snapshotId));
        await updateDatasetCounts(trx, input.datasetId, await mediaCounts(trx, input.versionId));
        await markRestoring(trx, input.snapshotId, null);
        await requireDatasetTransition(trx, input.datasetId, restoreCommitted(input.snapshotStatus), { progress: 100 });
        await updateTaskProgress(trx, input.taskId, { status: 'COMPLETED', statusMessage: 'Snapshot restored', progressPercentage: 100, phase: 'done' });
      });
      await dropUnusedVersions(db, input.datasetId);
    },

    async failRestore(input: SnapshotRestoreInput & Ending): Promise<void> {
      await TASK_TYPE_REGISTRY.SNAPSHOT_RESTORE.endUnfinished(db, input, input);
    },

    /** The copy becomes the clone's head, the clone gets its own snapshot (reason `clone`), and it is ready. */
    async commitClone(input: SnapshotCloneInput): Promise<void> {
      await db.transaction(async (trx) => {
        await setHeadVersion(trx, input.datasetId, input.versionId);
        await copyViews(trx, input.datasetId, await snapshotViews(trx, input.snapshotId));
      });
      await dropUnusedVersions(db, input.datasetId);
      await takeOnce(input.datasetId, 'clone', input.cloneSnapshotId, input.snapshotStatus);
      await db.transaction(async (trx) => {
        await updateDatasetCounts(trx, input.datasetId, await mediaCounts(trx, input.versionId));
        await requireDatasetTransition(trx, input.datasetId, cloneCommitted(input.snapshotStatus), { progress: 100 });
        await updateTaskProgress(trx, input.taskId, { status: 'COMPLETED', statusMessage: 'Clone ready', progressPercentage: 100, phase: 'done' });
      });
    },

    async failClone(input: SnapshotCloneInput & Ending): Promise<void> {
      await TASK_TYPE_REGISTRY.SNAPSHOT_CLONE.endUnfinished(db, input, input);
    },
  });
}
