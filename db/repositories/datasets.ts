import type { Db } from '../connection';
import { Dataset, DatasetMember, type DatasetRole, type DatasetStatus } from '../models';

export interface DatasetRow extends Dataset {
  owner_email: string;
}

export type DatasetAccess =
  | { kind: 'granted'; dataset: DatasetRow; role: DatasetRole }
  | { kind: 'forbidden' }
  | { kind: 'missing' };

/**
 * Datasets with the caller's effective role: their dataset-level role, or `editor` for admins of the
 * dataset's workspace. `workspace_role` tells a workspace colleague without access (403) from a stranger (404).
 */
function datasetsWithRole(db: Db, userId: string) {
  return db('datasets as d')
    .join('users as owner', 'owner.id', 'd.owner_id')
    .leftJoin('dataset_members as dm', (join) => join.on('dm.dataset_id', 'd.id').andOnVal('dm.user_id', userId))
    .leftJoin('workspace_members as wm', (join) => join.on('wm.workspace_id', 'd.workspace_id').andOnVal('wm.user_id', userId))
    .select(
      'd.*',
      'owner.email as owner_email',
      db.raw(`coalesce(dm.role, case when wm.role = 'admin' then 'editor' end) as access_role`),
      'wm.role as workspace_role',
    );
}

export async function getDatasetAccess(db: Db, datasetId: string, userId: string): Promise<DatasetAccess> {
  const row = await datasetsWithRole(db, userId).where('d.id', datasetId).first();
  if (!row) return { kind: 'missing' };
  if (row.access_role) return { kind: 'granted', dataset: row, role: row.access_role };
  return row.workspace_role ? { kind: 'forbidden' } : { kind: 'missing' };
}

export function listDatasetsForUser(db: Db, userId: string): Promise<DatasetRow[]> {
  return db.from(datasetsWithRole(db, userId).as('ds')).whereNotNull('access_role').orderBy('created_at', 'desc');
}

export async function createDataset(
  db: Db,
  input: { name: string; ownerId: string; workspaceId: string; status: DatasetStatus },
): Promise<Dataset> {
  return db.transaction(async (trx) => {
    const dataset = await Dataset.query(trx).insertAndFetch({
      display_name: input.name,
      owner_id: input.ownerId,
      workspace_id: input.workspaceId,
      status_new: input.status,
    });
    await DatasetMember.query(trx).insert({ dataset_id: dataset.id, user_id: input.ownerId, role: 'owner' });
    return dataset;
  });
}

export async function addDatasetMember(db: Db, datasetId: string, userId: string, role: DatasetRole): Promise<void> {
  await DatasetMember.query(db).insert({ dataset_id: datasetId, user_id: userId, role }).onConflict(['dataset_id', 'user_id']).merge();
}

/** Ids of the datasets the user can access, as a subquery for other listings (tasks, notifications). */
export function accessibleDatasetIds(db: Db, userId: string) {
  return db.from(datasetsWithRole(db, userId).as('ds')).whereNotNull('access_role').select('id');
}

/**
 * Makes one of the state machine's transitions (lib/datasetStates.ts) in one guarded UPDATE, so two
 * concurrent requests can never both win. Returns false when the dataset was not in a `from` status.
 */
export async function transitionDatasetStatus(
  db: Db,
  datasetId: string,
  transition: { from: readonly DatasetStatus[]; to: DatasetStatus },
  extra: Partial<Pick<Dataset, 'progress' | 'error_message'>> = {},
): Promise<boolean> {
  const updated = await db('datasets')
    .where({ id: datasetId })
    .whereIn('status_new', transition.from)
    .update({ status_new: transition.to, updated_at: db.fn.now(), ...extra });
  return updated === 1;
}

/** Everyone with a role on the dataset: who its notifications go to. */
export async function datasetCollaboratorIds(db: Db, datasetId: string): Promise<string[]> {
  return db('dataset_members').where({ dataset_id: datasetId }).orderBy('user_id').pluck('user_id');
}
