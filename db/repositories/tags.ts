import type { Db } from '../connection';

export interface TagRow {
  id: string;
  name: string;
  created_at: Date;
  n_media: number;
}

export async function listTags(db: Db, datasetId: string): Promise<TagRow[]> {
  return db('tags as t')
    .leftJoin('media_tags as mt', 'mt.tag_id', 't.id')
    .where('t.dataset_id', datasetId)
    .groupBy('t.id')
    .select('t.id', 't.name', 't.created_at', db.raw('count(mt.media_id)::int as n_media'))
    .orderBy('t.name');
}

export async function createTag(db: Db, datasetId: string, name: string, userId: string): Promise<TagRow | undefined> {
  const [row] = await db('tags')
    .insert({ dataset_id: datasetId, name, created_by: userId })
    .onConflict(['dataset_id', 'name'])
    .ignore()
    .returning(['id', 'name', 'created_at']);
  return row ? { ...row, n_media: 0 } : undefined;
}

export async function deleteTag(db: Db, datasetId: string, tagId: string): Promise<boolean> {
  return (await db('tags').where({ id: tagId, dataset_id: datasetId }).delete()) === 1;
}

export async function tagExists(db: Db, datasetId: string, tagId: string): Promise<boolean> {
  return Boolean(await db('tags').where({ id: tagId, dataset_id: datasetId }).first());
}

export type MediaSelection = { mediaIds: string[] } | { clusterId: string };

/** The media of the dataset a selection names: listed ids, or every member of a cluster. */
function selectedMedia(db: Db, datasetId: string, selection: MediaSelection) {
  return 'mediaIds' in selection
    ? db('media').where('dataset_id', datasetId).whereIn('id', selection.mediaIds).select('id')
    : db('cluster_members').where({ dataset_id: datasetId, cluster_id: selection.clusterId }).select('media_id as id');
}

/** Tags the selected media; returns how many were newly tagged (already tagged ones are kept). */
export async function tagMedia(db: Db, datasetId: string, tagId: string, selection: MediaSelection): Promise<number> {
  const result = await db.raw(
    `INSERT INTO media_tags (media_id, tag_id, dataset_id)
     SELECT s.id, ?, ? FROM (${selectedMedia(db, datasetId, selection).toQuery()}) s
     ON CONFLICT DO NOTHING`,
    [tagId, datasetId],
  );
  return result.rowCount ?? 0;
}

export async function untagMedia(db: Db, datasetId: string, tagId: string, selection: MediaSelection): Promise<number> {
  return db('media_tags').where({ tag_id: tagId, dataset_id: datasetId }).whereIn('media_id', selectedMedia(db, datasetId, selection)).delete();
}
