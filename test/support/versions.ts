import { createDataset } from '../../db/repositories/datasets';
import type { Db } from '../../db/connection';
import { headVersion, unusedVersions } from '../../db/repositories/versions';
import { eventually } from './media';

/** The version a dataset's rows live in now, for tests that look at the tables directly. */
export async function headVersionId(db: Db, datasetId: string): Promise<string> {
  return (await headVersion(db, datasetId)).id;
}

/** The ids of a dataset's head media, by file name. */
export async function headMediaIdsByName(db: Db, datasetId: string): Promise<Map<string, string>> {
  const rows: Array<{ id: string; file_name: string }> = await db('media as m')
    .join('datasets as d', 'd.head_version_id', 'm.version_id')
    .where('d.id', datasetId)
    .select('m.id', 'm.file_name');
  return new Map(rows.map((row) => [row.file_name, row.id]));
}

/** A READY dataset of the first user in the first workspace, with no media: its head version and the clustering it writes. */
export async function emptyReadyVersion(db: Db, name: string): Promise<{ versionId: string; clusteringId: string }> {
  const admin = await db('users').first();
  const workspace = await db('workspaces').first();
  const dataset = await createDataset(db, { name, ownerId: admin.id, workspaceId: workspace.id, status: 'READY' });
  const versionId = dataset.head_version_id!;
  const { clustering_id: clusteringId } = await db('dataset_versions').where({ id: versionId }).first('clustering_id');
  return { versionId, clusteringId };
}

/**
 * Waits until the dataset keeps only the versions something uses (its head, its snapshots'): a restore or
 * a clone drops the version it replaced just after its task completed, outside the task's transaction.
 */
export async function unusedVersionsDropped(db: Db, datasetId: string): Promise<void> {
  await eventually(
    async () => (await unusedVersions(db, datasetId).pluck('v.id')).length,
    (unused) => unused === 0,
    60_000,
    `the unused versions of dataset ${datasetId} to be dropped`,
  );
}
