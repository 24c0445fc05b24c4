import type { Db } from '../connection';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { writeTagChange } from './clusterFacets';
import { applyFilter } from './explore';
import { INDEXED_KINDS } from './media';

/** An embedded image or frame a selection may choose: its uniqueness and its class (the label field's value). */
export interface PoolRow {
  id: string;
  uniqueness: number | null;
  label: string | null;
}

/** The embedded images and frames of `versionId` that pass every filter, by id; `labelField` gives each its class. */
export async function selectionPool(db: Db, versionId: string, filters: readonly MediaFilter[], labelField: string | null): Promise<PoolRow[]> {
  const query = db('media as m').where({ 'm.version_id': versionId, 'm.embedded': true }).whereIn('m.kind', INDEXED_KINDS).orderBy('m.id');
  for (const filter of filters) applyFilter(query, db, filter);
  const label = labelField === null ? db.raw('NULL::text AS label') : db.raw(`nullif(btrim(m.custom_metadata->>?), '') AS label`, [labelField]);
  return query.select('m.id', 'm.uniqueness_score as uniqueness', label);
}

/** A chosen item, written on the tag. */
export interface Pick {
  mediaId: string;
  score: number;
  reason: string;
}

/** Whether the dataset's head version has a tag named `name`. */
export async function headTagNamed(db: Db, versionId: string, name: string): Promise<boolean> {
  return Boolean(await db('tags').where({ version_id: versionId, name }).first('id'));
}

/**
 * Tag `name` on exactly `picks` (each with its score and reason), made when missing, in one transaction: a repeated
 * write (a retried activity) gives the same rows.
 */
export async function writeSelectionTag(db: Db, versionId: string, name: string, userId: string, picks: readonly Pick[]): Promise<string> {
  return db.transaction(async (trx) => {
    await trx('tags').insert({ version_id: versionId, name, created_by: userId }).onConflict(['version_id', 'name']).ignore();
    const { id: tagId } = await trx('tags').where({ version_id: versionId, name }).first('id');
    await writeTagChange(trx, versionId, tagId, { sql: 'DELETE FROM media_tags WHERE version_id = ? AND tag_id = ? RETURNING media_id', bindings: [versionId, tagId] }, -1);
    await writeTagChange(
      trx,
      versionId,
      tagId,
      {
        sql: `INSERT INTO media_tags (version_id, media_id, tag_id, selection_score, selection_reason)
              SELECT ?, p.media_id, ?, p.score, p.reason FROM unnest(?::uuid[], ?::real[], ?::text[]) AS p(media_id, score, reason) RETURNING media_id`,
        bindings: [versionId, tagId, picks.map((pick) => pick.mediaId), picks.map((pick) => pick.score), picks.map((pick) => pick.reason)],
      },
      1,
    );
    return tagId;
  });
}

/** A tag's chosen items with their scores and reasons, best first (none for a tag a user applied). */
export async function selectionPicks(db: Db, versionId: string, tagId: string): Promise<Pick[]> {
  const rows: Array<{ media_id: string; selection_score: number; selection_reason: string }> = await db('media_tags')
    .where({ version_id: versionId, tag_id: tagId })
    .whereNotNull('selection_reason')
    .orderBy([{ column: 'selection_score', order: 'desc' }, 'media_id'])
    .select('media_id', 'selection_score', 'selection_reason');
  return rows.map((row) => ({ mediaId: row.media_id, score: row.selection_score, reason: row.selection_reason }));
}
