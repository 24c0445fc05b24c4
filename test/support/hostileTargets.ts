import { Workspace } from '../../db/models';
import type { Db } from '../../db/connection';
import { createDataset } from '../../db/repositories/datasets';

/** An upload route and the multipart part it reads: a file part, or (views) a text field when `fileName` is empty. */
export interface UploadTarget {
  name: string;
  path: string;
  fileField: string;
  fileName: string;
}

/**
 * Datasets every upload route reads a body for: a new one with an open upload transaction, and one
 * READY with an embedding configuration (add_media and visual search get past their preconditions).
 */
export async function uploadTargets(apiUrl: string, db: Db): Promise<{ datasetIds: string[]; targets: UploadTarget[] }> {
  const admin = await db('users').orderBy('created_at').first('id');
  const workspace = await Workspace.query(db).first();
  const fresh = await createDataset(db, { name: 'hostile-new', ownerId: admin.id, workspaceId: workspace!.id, status: 'UPLOADING' });
  const opened = await fetch(`${apiUrl}/api/v1/ingestion/${fresh.id}/data_files`);
  if (opened.status !== 200) throw new Error(`cannot open a transaction: ${opened.status} ${await opened.text()}`);
  const { trans_id: transId } = (await opened.json()) as { trans_id: number };
  const ready = await createDataset(db, { name: 'hostile-ready', ownerId: admin.id, workspaceId: workspace!.id, status: 'READY' });
  await db('datasets').where({ id: ready.id }).update({ embedding_config: JSON.stringify({ model: 'm', dim: 4 }) });
  const base = `/api/v1/dataset/${ready.id}`;
  return {
    datasetIds: [fresh.id, ready.id],
    targets: [
      { name: 'data_files', path: `/api/v1/ingestion/${fresh.id}/data_files/${transId}`, fileField: 'files', fileName: 'a.jpg' },
      { name: 'add_media', path: `${base}/add_media`, fileField: 'files', fileName: 'a.jpg' },
      { name: 'add_media archive', path: `${base}/add_media`, fileField: 'archive', fileName: 'a.zip' },
      { name: 'views', path: `${base}/views`, fileField: 'name', fileName: '' },
      { name: 'visual search', path: `${base}/search-image-similarity?entity_type=IMAGES`, fileField: 'file', fileName: 'a.jpg' },
      { name: 'custom metadata', path: `${base}/custom_metadata`, fileField: 'file', fileName: 'a.csv' },
    ],
  };
}

/** What a refused request must not change about datasets: their rows, media, uploads, views, anchors and tasks. */
export async function datasetFootprint(db: Db, datasetIds: string[]): Promise<Record<string, unknown>> {
  const count = async (table: string) => Number((await db(table).whereIn('dataset_id', datasetIds).count({ n: '*' }))[0].n);
  return {
    datasets: await db('datasets').whereIn('id', datasetIds).orderBy('id'),
    uploaded_files: await count('uploaded_files'),
    media: Number((await db('media').whereIn('version_id', db('dataset_versions').whereIn('dataset_id', datasetIds).select('id')).count({ n: '*' }))[0].n),
    saved_views: await count('saved_views'),
    search_anchors: await count('search_anchors'),
    tasks: await count('tasks'),
  };
}
