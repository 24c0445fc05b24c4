import type { Db } from '../connection';
import type { DatasetStatus } from '../../lib/datasetStates';
import type { ViewDefinition } from './views';

export type SnapshotReason = 'manual' | 'creation' | 'clone';

export interface SnapshotRow {
  id: string;
  dataset_id: string;
  version_id: string;
  name: string;
  description: string;
  reason: SnapshotReason;
  created_by_email: string | null;
  source_dataset_name: string;
  dataset_status: Extract<DatasetStatus, 'READY' | 'PARTIAL INDEX'>;
  n_images: number;
  n_videos: number;
  created_at: Date;
  is_current: boolean;
  is_restoring: boolean;
}

/** Snapshots that were not deleted, with what the API shows of them. */
function visibleSnapshots(db: Db) {
  return db('snapshots as s')
    .join('datasets as d', 'd.id', 's.dataset_id')
    .leftJoin('users as u', 'u.id', 's.created_by')
    .whereNull('s.deleted_at')
    .select(
      's.*',
      'u.email as created_by_email',
      db.raw('(d.current_snapshot_id IS NOT DISTINCT FROM s.id) AS is_current'),
      db.raw('(s.restoring_task_id IS NOT NULL) AS is_restoring'),
    );
}

export async function listSnapshots(db: Db, datasetId: string): Promise<SnapshotRow[]> {
  return visibleSnapshots(db).where('s.dataset_id', datasetId).orderBy([{ column: 's.created_at', order: 'desc' }, { column: 's.id', order: 'desc' }]);
}

export async function findSnapshot(db: Db, datasetId: string, snapshotId: string): Promise<SnapshotRow | undefined> {
  return visibleSnapshots(db).where({ 's.dataset_id': datasetId, 's.id': snapshotId }).first();
}

/** The dataset's current snapshot: the latest one taken or restored. */
export async function findCurrentSnapshot(db: Db, datasetId: string): Promise<SnapshotRow | undefined> {
  return visibleSnapshots(db).where('s.dataset_id', datasetId).whereRaw('s.id = d.current_snapshot_id').first();
}

/** Records a snapshot of `versionId` (a frozen copy) and makes it the dataset's current one. */
export async function insertSnapshot(
  db: Db,
  snapshot: {
    id: string;
    datasetId: string;
    versionId: string;
    name: string;
    description: string;
    reason: SnapshotReason;
    createdBy: string | null;
    sourceDatasetName: string;
    datasetStatus: SnapshotRow['dataset_status'];
    counts: { n_images: number; n_videos: number };
    views: ViewDefinition[];
  },
): Promise<void> {
  await db('snapshots').insert({
    id: snapshot.id,
    dataset_id: snapshot.datasetId,
    version_id: snapshot.versionId,
    name: snapshot.name,
    description: snapshot.description,
    reason: snapshot.reason,
    created_by: snapshot.createdBy,
    source_dataset_name: snapshot.sourceDatasetName,
    dataset_status: snapshot.datasetStatus,
    views: JSON.stringify(snapshot.views),
    ...snapshot.counts,
  });
  await setCurrentSnapshot(db, snapshot.datasetId, snapshot.id);
}

export async function setCurrentSnapshot(db: Db, datasetId: string, snapshotId: string): Promise<void> {
  await db('datasets').where({ id: datasetId }).update({ current_snapshot_id: snapshotId });
}

export async function hasSnapshotOfReason(db: Db, datasetId: string, reason: SnapshotReason): Promise<boolean> {
  return Boolean(await db('snapshots').where({ dataset_id: datasetId, reason }).first('id'));
}

export async function updateSnapshot(db: Db, snapshotId: string, patch: { name?: string; description?: string }): Promise<void> {
  await db('snapshots').where({ id: snapshotId }).update(patch);
}

/** Hides a snapshot; the storage collector purges it and its frozen version after SNAPSHOT_RETENTION_DAYS. False when it is the current one. */
export async function softDeleteSnapshot(db: Db, datasetId: string, snapshotId: string): Promise<boolean> {
  const updated = await db('snapshots as s')
    .where({ 's.id': snapshotId, 's.dataset_id': datasetId })
    .whereNull('s.deleted_at')
    .whereNotExists(db('datasets as d').where('d.id', datasetId).whereRaw('d.current_snapshot_id = s.id'))
    .update({ deleted_at: db.fn.now() });
  return updated === 1;
}

/** Marks the snapshot being restored by `taskId` (is_restoring), or clears the mark with null. */
export async function markRestoring(db: Db, snapshotId: string, taskId: string | null): Promise<void> {
  await db('snapshots').where({ id: snapshotId }).update({ restoring_task_id: taskId });
}

export async function snapshotViews(db: Db, snapshotId: string): Promise<ViewDefinition[]> {
  const row = await db('snapshots').where({ id: snapshotId }).first('views');
  if (!row) throw new Error(`snapshot ${snapshotId} does not exist`);
  return row.views;
}
