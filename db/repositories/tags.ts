import type { Db } from '../connection';
import { dropTagCounts, writeTagChange } from './clusterFacets';
import { selectedMedia, type MediaSelection } from './selection';

// Tags belong to a dataset's head version; callers name the dataset.

export interface TagRow {
  id: string;
  name: string;
  created_at: Date;
  n_media: number;
}

const headOf = (db: Db, datasetId: string) => db('datasets').where({ id: datasetId }).select('head_version_id');

export async function listTags(db: Db, datasetId: string): Promise<TagRow[]> {
  return db('tags as t')
    .leftJoin('media_tags as mt', (join) => join.on('mt.version_id', 't.version_id').andOn('mt.tag_id', 't.id'))
    .where('t.version_id', headOf(db, datasetId))
    .groupBy('t.version_id', 't.id')
    .select('t.id', 't.name', 't.created_at', db.raw('count(mt.media_id)::int as n_media'))
    .orderBy('t.name');
}

export async function createTag(db: Db, datasetId: string, name: string, userId: string): Promise<TagRow | undefined> {
  const [row] = await db('tags')
    .insert({ version_id: headOf(db, datasetId), name, created_by: userId })
    .onConflict(['version_id', 'name'])
    .ignore()
    .returning(['id', 'name', 'created_at']);
  return row ? { ...row, n_media: 0 } : undefined;
}

export async function deleteTag(db: Db, datasetId: string, tagId: string): Promise<boolean> {
  const versionId = await headVersionId(db, datasetId);
  return db.transaction(async (trx) => {
    await dropTagCounts(trx, versionId, tagId);
    return (await trx('tags').where({ id: tagId, version_id: versionId }).delete()) === 1;
  });
}

export async function tagExists(db: Db, datasetId: string, tagId: string): Promise<boolean> {
  return Boolean(await db('tags').where({ id: tagId, version_id: headOf(db, datasetId) }).first());
}

async function headVersionId(db: Db, datasetId: string): Promise<string> {
  return (await headOf(db, datasetId).first()).head_version_id;
}

/** Tags the selected media; returns how many were newly tagged (already tagged ones are kept). */
export async function tagMedia(db: Db, datasetId: string, tagId: string, selection: MediaSelection): Promise<number> {
  const versionId = await headVersionId(db, datasetId);
  const sql = `INSERT INTO media_tags (version_id, media_id, tag_id)
     SELECT ?, s.id, ? FROM (${selectedMedia(db, versionId, selection).toQuery()}) s
     ON CONFLICT DO NOTHING RETURNING media_id`;
  return db.transaction((trx) => writeTagChange(trx, versionId, tagId, { sql, bindings: [versionId, tagId] }, 1));
}

export async function untagMedia(db: Db, datasetId: string, tagId: string, selection: MediaSelection): Promise<number> {
  const versionId = await headVersionId(db, datasetId);
  const change = db('media_tags').where({ tag_id: tagId, version_id: versionId }).whereIn('media_id', selectedMedia(db, versionId, selection)).delete().returning('media_id').toSQL();
  return db.transaction((trx) => writeTagChange(trx, versionId, tagId, change, -1));
}
