import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { createDataset, datasetName, datasetOwner, transitionDatasetStatus, updateDatasetCounts, type DatasetRow } from '../db/repositories/datasets';
import { discardUploadsMissingFromHead } from '../db/repositories/ingestion';
import { mediaCounts } from '../db/repositories/media';
import {
  findCurrentSnapshot,
  findSnapshot,
  hasSnapshotOfReason,
  insertSnapshot,
  listSnapshots,
  markRestoring,
  setCurrentSnapshot,
  snapshotViews,
  softDeleteSnapshot,
  updateSnapshot,
  type SnapshotReason,
  type SnapshotRow,
} from '../db/repositories/snapshots';
import { runningTaskOf, updateTaskProgress } from '../db/repositories/tasks';
import { copyViews, restoreViews, viewDefinitions } from '../db/repositories/views';
import { COPY_QUERY_OPTIONS, copyVersionIn, diffVersions, dropUnusedVersions, headVersion, inSnapshotTransaction, setHeadVersion, type VersionDiff, type VersionTable } from '../db/repositories/versions';
import {
  canStart,
  cloneCommitted,
  releaseTransition,
  restoreCommitted,
  statusRefusal,
  TASK_TYPES,
  TRANSITIONS,
  type DatasetOperation,
  type SnapshotStatus,
} from '../lib/datasetStates';
import { conflict, notFound } from '../lib/errors';
import type { SnapshotCloneInput, SnapshotRestoreInput } from '../workflows/contracts';
import { claimDatasetFor } from './datasetStates';
import { requireCreatorWorkspace } from './ingestion';
import type { Liveness } from './taskLiveness';
import { createTask, type TaskDeps } from './taskWorkflows';
import { commitTaskEnd, completeTask } from './taskTypes';

const snapshotNotFound = () => notFound('Snapshot not found');

/**
 * Refuses a snapshot or a restore unless the dataset is stable; while a task changes its data the
 * refusal names that task, as the spec's list of blocking operations reads.
 */
async function requireStable(db: Db, dataset: DatasetRow, operation: Extract<DatasetOperation, 'snapshot' | 'restore'>): Promise<void> {
  if (canStart(operation, dataset.status_new)) return;
  const running = await runningTaskOf(db, dataset.id, TASK_TYPES);
  if (running) {
    const what = operation === 'snapshot' ? 'Snapshot creation' : 'Snapshot restore';
    throw conflict(`${what} is blocked while ${running.task_type} task is running`);
  }
  throw conflict(statusRefusal(dataset.id, operation, dataset.status_new));
}

export async function listDatasetSnapshots(db: Db, dataset: DatasetRow): Promise<SnapshotRow[]> {
  return listSnapshots(db, dataset.id);
}

/**
 * Freezes the dataset's head as a snapshot: its rows are copied (a range of media ids per INSERT …
 * SELECT, under the copy's statement limit rather than the API's, in one transaction that sees one state of
 * the data) into a version nothing writes again, and the snapshot becomes the current one. Media
 * bytes, vectors and the clustering are shared, not copied.
 */
export async function takeSnapshot(
  db: Db,
  request: {
    datasetId: string;
    reason: SnapshotReason;
    datasetStatus: SnapshotStatus;
    createdBy: string | null;
    name?: string;
    description?: string;
    snapshotId?: string;
    onTable?: (table: VersionTable) => void;
  },
): Promise<string> {
  const snapshotId = request.snapshotId ?? randomUUID();
  await inSnapshotTransaction(db, async (trx) => {
    const datasetDisplayName = await datasetName(trx, request.datasetId);
    const head = await headVersion(trx, request.datasetId);
    const versionId = randomUUID();
    await copyVersionIn(trx, head, request.datasetId, versionId, request.onTable);
    await insertSnapshot(trx, {
      id: snapshotId,
      datasetId: request.datasetId,
      versionId,
      name: request.name ?? `${datasetDisplayName}_snapshot_${snapshotId}`,
      description: request.description ?? '',
      reason: request.reason,
      createdBy: request.createdBy,
      sourceDatasetName: datasetDisplayName,
      datasetStatus: request.datasetStatus,
      counts: await mediaCounts(trx, versionId, COPY_QUERY_OPTIONS),
      views: await viewDefinitions(trx, request.datasetId),
    });
  });
  return snapshotId;
}

/** POST snapshot: taken at once from a READY or PARTIAL INDEX dataset. */
export async function createSnapshot(
  db: Db,
  dataset: DatasetRow,
  user: User,
  request: { name?: string; description?: string },
): Promise<SnapshotRow> {
  await requireStable(db, dataset, 'snapshot');
  const snapshotId = await takeSnapshot(db, {
    datasetId: dataset.id,
    reason: 'manual',
    datasetStatus: dataset.status_new as SnapshotStatus,
    createdBy: user.id,
    ...request,
  });
  return (await findSnapshot(db, dataset.id, snapshotId))!;
}

export async function requireSnapshot(db: Db, dataset: DatasetRow, snapshotId: string): Promise<SnapshotRow> {
  const snapshot = await findSnapshot(db, dataset.id, snapshotId);
  if (!snapshot) throw snapshotNotFound();
  return snapshot;
}

export async function editSnapshot(db: Db, dataset: DatasetRow, snapshotId: string, patch: { name?: string; description?: string }) {
  await requireSnapshot(db, dataset, snapshotId);
  await updateSnapshot(db, snapshotId, patch);
  return (await findSnapshot(db, dataset.id, snapshotId))!;
}

/** Soft delete: hidden from every answer; the dataset and clones made from it are untouched. */
export async function deleteSnapshot(db: Db, dataset: DatasetRow, snapshotId: string): Promise<void> {
  await requireSnapshot(db, dataset, snapshotId);
  if (!(await softDeleteSnapshot(db, dataset.id, snapshotId))) throw conflict('The current snapshot cannot be deleted');
}

/** A snapshot named by id, or `current`: the latest one taken or restored. */
async function resolveSnapshot(db: Db, dataset: DatasetRow, ref: string): Promise<SnapshotRow> {
  const snapshot = ref === 'current' ? await findCurrentSnapshot(db, dataset.id) : await findSnapshot(db, dataset.id, ref);
  if (!snapshot) throw snapshotNotFound();
  return snapshot;
}

/** The version a diff side names: a snapshot (by id or `current`), or `head` for the data as it is now. */
async function versionOf(db: Db, dataset: DatasetRow, ref: string): Promise<string> {
  if (ref === 'head') return dataset.head_version_id;
  return (await resolveSnapshot(db, dataset, ref)).version_id;
}

/** What changed from one snapshot (or the live data) to another, by media item. */
export async function diffSnapshots(db: Db, dataset: DatasetRow, from: string, to: string, limit: number): Promise<VersionDiff> {
  return diffVersions(db, await versionOf(db, dataset, from), await versionOf(db, dataset, to), limit);
}

/**
 * Starts a SNAPSHOT_RESTORE: the dataset is claimed READ ONLY (reads keep answering from the data
 * before the restore), the snapshot shows is_restoring, and the workflow copies the snapshot into a
 * new head version, then switches to it.
 */
export async function startRestore(deps: TaskDeps, dataset: DatasetRow, user: User, ref: string): Promise<string> {
  const snapshot = await resolveSnapshot(deps.db, dataset, ref);
  await requireStable(deps.db, dataset, 'restore');
  let previousStatus = dataset.status_new;
  return createTask(
    deps,
    {
      taskType: 'SNAPSHOT_RESTORE',
      datasetId: dataset.id,
      user,
      statusMessage: `Queued: restore ${snapshot.name}`,
      input: (taskId): SnapshotRestoreInput => ({
        taskId,
        datasetId: dataset.id,
        snapshotId: snapshot.id,
        sourceVersionId: snapshot.version_id,
        versionId: randomUUID(),
        snapshotStatus: snapshot.dataset_status,
        previousStatus,
      }),
    },
    async (trx, taskId) => {
      previousStatus = await claimDatasetFor(trx, dataset, 'restore');
      await markRestoring(trx, snapshot.id, taskId);
    },
    async (db) => {
      await markRestoring(db, snapshot.id, null);
      await transitionDatasetStatus(db, dataset.id, releaseTransition('restore', previousStatus));
    },
  );
}

/**
 * Starts a SNAPSHOT_CLONE: a new dataset `<name> (cloned)` owned by the caller, INDEXING until the
 * workflow has copied the snapshot into it; the source is not touched. Returns the task id.
 */
export async function startClone(deps: TaskDeps, dataset: DatasetRow, user: User, snapshotId: string): Promise<string> {
  const snapshot = await requireSnapshot(deps.db, dataset, snapshotId);
  const workspaceId = await requireCreatorWorkspace(deps.db, user);
  const cloneId = randomUUID();
  return createTask(
    deps,
    {
      taskType: 'SNAPSHOT_CLONE',
      datasetId: cloneId,
      user,
      statusMessage: `Queued: clone of ${snapshot.name}`,
      input: (taskId): SnapshotCloneInput => ({
        taskId,
        datasetId: cloneId,
        snapshotId: snapshot.id,
        sourceVersionId: snapshot.version_id,
        versionId: randomUUID(),
        snapshotStatus: snapshot.dataset_status,
        cloneSnapshotId: randomUUID(),
      }),
    },
    async (trx) => {
      await createDataset(trx, {
        id: cloneId,
        name: `${dataset.display_name} (cloned)`,
        ownerId: user.id,
        workspaceId,
        status: 'INDEXING',
        embeddingConfig: dataset.embedding_config,
      });
    },
    async (db) => {
      await transitionDatasetStatus(db, cloneId, TRANSITIONS.cloneFailed, { error_message: 'The clone could not be started' });
    },
  );
}

/** A restore's end: the copied version becomes the head, the restored snapshot the current one, its views come back; the old head goes. */
export async function commitRestore(db: Db, input: SnapshotRestoreInput): Promise<void> {
  await commitTaskEnd(db, input.datasetId, async (trx) => {
    if ((await headVersion(trx, input.datasetId)).id !== input.versionId) {
      await setHeadVersion(trx, input.datasetId, input.versionId);
      await discardUploadsMissingFromHead(trx, input.datasetId);
    }
    await setCurrentSnapshot(trx, input.datasetId, input.snapshotId);
    await restoreViews(trx, input.datasetId, await snapshotViews(trx, input.snapshotId));
    await updateDatasetCounts(trx, input.datasetId, await mediaCounts(trx, input.versionId));
    await markRestoring(trx, input.snapshotId, null);
    await completeTask(trx, input, restoreCommitted(input.snapshotStatus), 'Snapshot restored', { progress: 100 });
  });
  await dropUnusedVersions(db, input.datasetId);
}

/** A clone's copy becomes its head, with the snapshot's views. */
async function adoptClone(db: Db, input: SnapshotCloneInput): Promise<void> {
  await db.transaction(async (trx) => {
    await setHeadVersion(trx, input.datasetId, input.versionId);
    await copyViews(trx, input.datasetId, await snapshotViews(trx, input.snapshotId));
  });
  await dropUnusedVersions(db, input.datasetId);
}

/** The clone (with its own snapshot taken) is ready. */
async function completeClone(db: Db, input: SnapshotCloneInput): Promise<void> {
  await commitTaskEnd(db, input.datasetId, async (trx) => {
    await updateDatasetCounts(trx, input.datasetId, await mediaCounts(trx, input.versionId));
    await completeTask(trx, input, cloneCommitted(input.snapshotStatus), 'Clone ready', { progress: 100 });
  });
}

/** Takes the dataset's snapshot of `reason` (on behalf of its owner) unless it has one: once per dataset. */
export async function takeSnapshotOnce(
  db: Db,
  live: Liveness,
  snapshot: { datasetId: string; reason: 'creation' | 'clone'; snapshotId: string; datasetStatus: SnapshotStatus },
): Promise<void> {
  const { datasetId, reason } = snapshot;
  if (await hasSnapshotOfReason(db, datasetId, reason)) return;
  const owner = await datasetOwner(db, datasetId);
  await takeSnapshot(db, { ...snapshot, createdBy: owner?.id ?? null, onTable: (table) => live.heartbeat(table) });
}

/** A restore's or a clone's task RUNNING, copying. */
export async function beginSnapshotTask(db: Db, ref: { taskId: string; message: string }): Promise<void> {
  await updateTaskProgress(db, ref.taskId, { status: 'RUNNING', statusMessage: ref.message, progressPercentage: 10, phase: 'copy' });
}

/** The copy becomes the clone's head, the clone gets its own snapshot (reason `clone`), and it is ready. */
export async function commitClone(db: Db, live: Liveness, input: SnapshotCloneInput): Promise<void> {
  await adoptClone(db, input);
  await takeSnapshotOnce(db, live, { datasetId: input.datasetId, reason: 'clone', snapshotId: input.cloneSnapshotId, datasetStatus: input.snapshotStatus });
  await completeClone(db, input);
}
