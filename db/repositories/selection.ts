import type { Knex } from 'knex';
import type { Db } from '../connection';
import { clusteringOf } from './clusteringOf';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { applyFilter } from './explore';
import { INDEXED_KINDS } from './media';

/**
 * What a curator picked, as the union of its parts: media by id, whole clusters (every member, not
 * only the previews shown), and every image and frame that passes all of `filters` (an empty list
 * passes everything).
 */
export interface MediaSelection {
  mediaIds?: string[];
  clusterIds?: string[];
  filters?: MediaFilter[];
}

/** The ids (column `id`) of the media of `versionId` that `selection` names, each once. */
export function selectedMedia(db: Db, versionId: string, selection: MediaSelection): Knex.QueryBuilder {
  const parts: Knex.QueryBuilder[] = [];
  if (selection.mediaIds?.length) parts.push(db('media').where('version_id', versionId).whereRaw('id = ANY(?::uuid[])', [selection.mediaIds]).select('id'));
  if (selection.clusterIds?.length) {
    parts.push(db('cluster_members').where('clustering_id', clusteringOf(db, versionId)).whereRaw('cluster_id = ANY(?::uuid[])', [selection.clusterIds]).select('media_id as id'));
  }
  if (selection.filters) {
    const matching = db('media as m').where('m.version_id', versionId).whereIn('m.kind', INDEXED_KINDS).select('m.id');
    for (const filter of selection.filters) applyFilter(matching, db, filter);
    parts.push(matching);
  }
  if (parts.length === 0) throw new Error('an empty selection');
  return parts.length === 1 ? parts[0] : db.union(parts);
}

/** How many media of `versionId` the selection names, by kind (IMAGE, VIDEO_FRAME, VIDEO). */
export async function countSelectedMediaByKind(db: Db, versionId: string, selection: MediaSelection): Promise<Record<string, number>> {
  const rows: Array<{ kind: string; n: number }> = await db
    .from(selectedMedia(db, versionId, selection).as('s'))
    .join('media as m', (join) => join.on('m.id', 's.id').andOnVal('m.version_id', versionId))
    .groupBy('m.kind')
    .select('m.kind', db.raw('count(*)::int AS n'));
  return Object.fromEntries(rows.map((row) => [row.kind, row.n]));
}

/** How many media of `versionId` the selection names. */
export async function countSelectedMedia(db: Db, versionId: string, selection: MediaSelection): Promise<number> {
  const row = await db.from(selectedMedia(db, versionId, selection).as('s')).first(db.raw('count(*)::int AS n'));
  return row?.n ?? 0;
}
