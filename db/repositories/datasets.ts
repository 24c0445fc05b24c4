import type { Db } from '../connection';
import { Dataset, DatasetMember, type DatasetRole, type DatasetStatus } from '../models';
import { createInitialVersion } from './versions';
import { TransitionRefused } from '../../lib/errors';

export interface DatasetRow extends Dataset {
  owner_email: string;
  head_version_id: string;
  /** The vector space of the head version: where its image and caption vectors live. */
  vector_space_id: string;
  /** The reader's effective role, on rows read for a user (getDatasetAccess, listDatasetsForUser). */
  access_role?: DatasetRole;
}

export type DatasetAccess =
  | { kind: 'granted'; dataset: DatasetRow; role: DatasetRole }
  | { kind: 'forbidden' }
  | { kind: 'missing' };

/**
 * Datasets with the caller's effective role: their dataset-level role, or `editor` for admins of the
 * dataset's workspace (deleted ones are not there). `workspace_role` tells a workspace colleague without access (403) from a stranger (404).
 */
function datasetsWithRole(db: Db, userId: string) {
  return db('datasets as d')
    .join('users as owner', 'owner.id', 'd.owner_id')
    .join('dataset_versions as hv', 'hv.id', 'd.head_version_id')
    .leftJoin('dataset_members as dm', (join) => join.on('dm.dataset_id', 'd.id').andOnVal('dm.user_id', userId))
    .leftJoin('workspace_members as wm', (join) => join.on('wm.workspace_id', 'd.workspace_id').andOnVal('wm.user_id', userId))
    // A deleted dataset is gone from every read at once; the storage collector purges its rows later.
    .whereNull('d.deleted_at')
    .select(
      'd.*',
      'owner.email as owner_email',
      'hv.vector_space_id',
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
  input: { id?: string; name: string; ownerId: string; workspaceId: string; status: DatasetStatus; embeddingConfig?: object | null },
): Promise<Dataset> {
  return db.transaction(async (trx) => {
    const dataset = await Dataset.query(trx).insertAndFetch({
      ...(input.id ? { id: input.id } : {}),
      ...(input.embeddingConfig ? { embedding_config: input.embeddingConfig as Record<string, unknown> } : {}),
      display_name: input.name,
      owner_id: input.ownerId,
      workspace_id: input.workspaceId,
      status_new: input.status,
    });
    await DatasetMember.query(trx).insert({ dataset_id: dataset.id, user_id: input.ownerId, role: 'owner' });
    dataset.head_version_id = await createInitialVersion(trx, dataset.id);
    return dataset;
  });
}

export async function addDatasetMember(db: Db, datasetId: string, userId: string, role: DatasetRole): Promise<void> {
  await DatasetMember.query(db).insert({ dataset_id: datasetId, user_id: userId, role }).onConflict(['dataset_id', 'user_id']).merge();
}

/**
 * Gives the datasets `fromUserId` owns (all, or those of one workspace) to `toUserId`, with the owner
 * role on them. The former owner's membership row stays as it was: the caller decides what it becomes.
 */
export async function transferOwnedDatasets(db: Db, fromUserId: string, toUserId: string, workspaceId?: string): Promise<void> {
  const owned = db('datasets').where({ owner_id: fromUserId });
  if (workspaceId) owned.where({ workspace_id: workspaceId });
  const ids: string[] = await owned.clone().pluck('id');
  if (ids.length === 0) return;
  await db('datasets').whereIn('id', ids).update({ owner_id: toUserId, updated_at: db.fn.now() });
  await db('dataset_members')
    .insert(ids.map((datasetId) => ({ dataset_id: datasetId, user_id: toUserId, role: 'owner' })))
    .onConflict(['dataset_id', 'user_id'])
    .merge({ role: 'owner' });
}

/** Lowers the user's owner and editor roles on the datasets of a workspace to viewer. */
export async function lowerDatasetRolesToViewer(db: Db, userId: string, workspaceId: string): Promise<void> {
  await db('dataset_members')
    .where({ user_id: userId })
    .whereIn('role', ['owner', 'editor'])
    .whereIn('dataset_id', db('datasets').where({ workspace_id: workspaceId }).select('id'))
    .update({ role: 'viewer' });
}

/** The dataset's members with their roles: the owner first, then by email. */
export async function listDatasetMembers(db: Db, datasetId: string): Promise<Array<{ user_id: string; email: string; role: DatasetRole }>> {
  return db('dataset_members as dm')
    .join('users as u', 'u.id', 'dm.user_id')
    .where('dm.dataset_id', datasetId)
    .orderByRaw(`(dm.role = 'owner') desc, u.email`)
    .select('dm.user_id', 'u.email', 'dm.role');
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

/**
 * A status change a task's progress depends on (a begin or a commit): it happens, or had happened
 * already (a retried step), or it throws TransitionRefused naming the status the dataset is in.
 */
export async function requireDatasetTransition(
  db: Db,
  datasetId: string,
  transition: { from: readonly DatasetStatus[]; to: DatasetStatus },
  extra: Partial<Pick<Dataset, 'progress' | 'error_message'>> = {},
): Promise<void> {
  if (await transitionDatasetStatus(db, datasetId, transition, extra)) return;
  await refuseUnlessAt(db, datasetId, transition);
}

async function refuseUnlessAt(db: Db, datasetId: string, transition: { from: readonly DatasetStatus[]; to: DatasetStatus }): Promise<void> {
  const status = (await db('datasets').where({ id: datasetId }).first('status_new'))?.status_new as DatasetStatus | undefined;
  if (status === transition.to) return;
  throw new TransitionRefused(
    `Dataset ${datasetId} is ${status ?? 'gone'}: it cannot move from ${transition.from.join(' or ')} to ${transition.to}`,
  );
}

/** Everyone with a role on the dataset: who its notifications go to. */
export async function datasetCollaboratorIds(db: Db, datasetId: string): Promise<string[]> {
  return db('dataset_members').where({ dataset_id: datasetId }).orderBy('user_id').pluck('user_id');
}

/** A fully indexed dataset: the transition to READY with fresh counts and the model it was embedded with. */
export async function commitIndexedDataset(
  db: Db,
  datasetId: string,
  transition: { from: readonly DatasetStatus[]; to: DatasetStatus },
  values: { counts: { n_images: number; n_videos: number }; embeddingConfig: object },
): Promise<void> {
  const updated = await db('datasets')
    .where({ id: datasetId })
    .whereIn('status_new', transition.from)
    .update({
      status_new: transition.to,
      progress: 100,
      ...values.counts,
      embedding_config: JSON.stringify(values.embeddingConfig),
      error_message: null,
      updated_at: db.fn.now(),
    });
  if (updated !== 1) await refuseUnlessAt(db, datasetId, transition);
}

export async function updateDatasetCounts(db: Db, datasetId: string, counts: { n_images: number; n_videos: number }): Promise<void> {
  await db('datasets').where({ id: datasetId }).update(counts);
}

export async function datasetName(db: Db, datasetId: string): Promise<string> {
  const row = await db('datasets').where({ id: datasetId }).first('display_name');
  if (!row) throw new Error(`dataset ${datasetId} does not exist`);
  return row.display_name;
}

export async function setDatasetName(db: Db, datasetId: string, name: string): Promise<void> {
  await db('datasets').where({ id: datasetId }).update({ display_name: name });
}

export async function datasetStatus(db: Db, datasetId: string): Promise<DatasetStatus | undefined> {
  return (await db('datasets').where({ id: datasetId }).first('status_new'))?.status_new;
}

/** The workspace's datasets whose name starts with `prefix`, for choosing a name no dataset has yet. */
export async function datasetNamesStartingWith(db: Db, workspaceId: string, prefix: string): Promise<string[]> {
  return db('datasets').where({ workspace_id: workspaceId }).whereRaw('starts_with(display_name, ?)', [prefix]).pluck('display_name');
}

/** The organization the dataset belongs to (through its workspace). */
export async function datasetOrganizationId(db: Db, datasetId: string): Promise<string> {
  const row = await db('datasets as d').join('workspaces as w', 'w.id', 'd.workspace_id').where('d.id', datasetId).first('w.organization_id');
  if (!row) throw new Error(`dataset ${datasetId} does not exist`);
  return row.organization_id;
}

/**
 * Claims the dataset for an operation: reads its status under a row lock, then makes the guarded
 * transition. Returns whether it was claimed and the status it was in (what a release gives back).
 */
export async function claimDatasetStatus(
  db: Db,
  datasetId: string,
  transition: { from: readonly DatasetStatus[]; to: DatasetStatus },
): Promise<{ claimed: boolean; previous: DatasetStatus | undefined }> {
  const previous: DatasetStatus | undefined = (await db('datasets').where({ id: datasetId }).forUpdate().first('status_new'))?.status_new;
  return { claimed: await transitionDatasetStatus(db, datasetId, transition), previous };
}

/** The dataset's status, held (FOR SHARE) until the caller's transaction ends: no claim can change it meanwhile. */
export async function lockDatasetStatus(trx: Db, datasetId: string): Promise<DatasetStatus | undefined> {
  return (await trx('datasets').where({ id: datasetId }).forShare().first('status_new'))?.status_new;
}

/** Marks the dataset changed now (what the map's legends and other stamped summaries are recomputed after). */
export async function touchDataset(trx: Db, datasetId: string): Promise<void> {
  await trx('datasets').where({ id: datasetId }).update({ updated_at: trx.fn.now() });
}

/** The owner of a dataset (the on-premises pipeline acts on their behalf). */
export async function datasetOwner(db: Db, datasetId: string): Promise<{ id: string; email: string } | undefined> {
  return db('datasets as d').join('users as u', 'u.id', 'd.owner_id').where('d.id', datasetId).first('u.id', 'u.email');
}
