import type { Db } from '../connection';
import { deleteFacetCounts } from './clusterFacets';
import { ACTIVE_TASK_STATUSES } from '../../lib/datasetStates';
import { exportTask } from '../../lib/tasks/export';
import { mapLayoutTask } from '../../lib/tasks/mapLayout';
import { releaseClusterings } from './clusters';
import type { DatasetStatus } from '../models';

/**
 * What a purge or a dropped version may have left unused. A candidate is only a hint: the collector
 * checks that nothing still uses it before it releases it, so recording too much is harmless and a
 * candidate survives a crash until its release is done.
 */
export type ReleaseKind = 'blob' | 'vector_space' | 'vector_point' | 'export_archive';

/** Records the blobs, vector spaces and vectors (`<space>/<media id>`) of the versions `versionIds` selects, in the caller's transaction, before they go. */
export async function recordVersionCandidates(trx: Db, versionIds: string[]): Promise<void> {
  if (versionIds.length === 0) return;
  await trx.raw(
    `INSERT INTO storage_release_candidates (kind, key)
     SELECT DISTINCT 'blob', sha FROM media m CROSS JOIN LATERAL (VALUES (m.blob_sha256), (m.thumb_sha256)) s(sha)
     WHERE m.version_id = ANY(?::uuid[]) AND sha IS NOT NULL
     ON CONFLICT DO NOTHING`,
    [versionIds],
  );
  await trx.raw(
    `INSERT INTO storage_release_candidates (kind, key)
     SELECT DISTINCT 'vector_space', vector_space_id::text FROM dataset_versions WHERE id = ANY(?::uuid[])
     ON CONFLICT DO NOTHING`,
    [versionIds],
  );
  await trx.raw(
    `INSERT INTO storage_release_candidates (kind, key)
     SELECT DISTINCT 'vector_point', v.vector_space_id::text || '/' || m.id::text
     FROM media m JOIN dataset_versions v ON v.id = m.version_id
     WHERE m.version_id = ANY(?::uuid[]) AND m.embedded
     ON CONFLICT DO NOTHING`,
    [versionIds],
  );
}

async function recordCandidates(trx: Db, kind: ReleaseKind, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await trx('storage_release_candidates').insert(keys.map((key) => ({ kind, key }))).onConflict(['kind', 'key']).ignore();
}

/**
 * Running tasks that use dataset `datasetSql` (an SQL expression): its own, and copies reading it (a
 * clone of its snapshot, an enriched copy of it), which run under the new dataset's id.
 */
function runningTasksUsing(db: Db, datasetSql: string, bindings: string[] = []) {
  return db('tasks as t')
    .whereIn('t.status', ACTIVE_TASK_STATUSES)
    .where((using) =>
      using
        .whereRaw(`t.dataset_id = ${datasetSql}`, bindings)
        .orWhereRaw(`t.input->>'sourceDatasetId' = (${datasetSql})::text`, bindings)
        .orWhereRaw(`t.input->>'sourceVersionId' IN (SELECT id::text FROM dataset_versions WHERE dataset_id = ${datasetSql})`, bindings),
    );
}

/**
 * What a delete waits for: every running task using the dataset but its map's layout, which a delete does not need to
 * wait for (the purge does: deletedDatasetIds).
 */
const runningTasksHoldingDelete = (db: Db, datasetId: string) => runningTasksUsing(db, '?::uuid', [datasetId]).whereNot('t.task_type', mapLayoutTask.type);

/**
 * Hides the dataset from every read at once (it is purged later), in one guarded update: only from
 * `from` and while no task of it runs (but a map layout). False when the dataset was not in such a state.
 */
export async function markDatasetDeleted(db: Db, datasetId: string, from: readonly DatasetStatus[]): Promise<boolean> {
  const updated = await db('datasets')
    .where({ id: datasetId })
    .whereNull('deleted_at')
    .whereIn('status_new', from)
    .whereNotExists(runningTasksHoldingDelete(db, datasetId))
    .update({ deleted_at: db.fn.now(), updated_at: db.fn.now() });
  return updated === 1;
}

/** The types of the running tasks that hold a delete of the dataset, for saying why it cannot be deleted now. */
export async function runningTaskTypes(db: Db, datasetId: string): Promise<string[]> {
  return runningTasksHoldingDelete(db, datasetId).distinct().orderBy('t.task_type').pluck('t.task_type');
}

/** Deleted datasets waiting for their purge (one whose task still runs waits for it to end). */
export async function deletedDatasetIds(db: Db, limit: number): Promise<string[]> {
  return db('datasets as d')
    .whereNotNull('d.deleted_at')
    .whereNotExists(runningTasksUsing(db, 'd.id'))
    .orderBy('d.deleted_at')
    .limit(limit)
    .pluck('d.id');
}

/**
 * Removes a deleted dataset's rows (versions, snapshots, tasks, uploads, views… through their
 * cascades) in one transaction that first records what they used: blobs, vector spaces, export
 * archives (`archiveKey` names one from its task). Repeating it after it committed does nothing.
 */
export async function purgeDeletedDataset(db: Db, datasetId: string, archiveKey: (taskId: string, fileName: string) => string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const dataset = await trx('datasets').where({ id: datasetId }).whereNotNull('deleted_at').forUpdate().first('id');
    if (!dataset) return false;
    await recordVersionCandidates(trx, await trx('dataset_versions').where({ dataset_id: datasetId }).pluck('id'));
    await recordCandidates(trx, 'vector_space', [datasetId]);
    const uploaded: string[] = await trx('uploaded_files').where({ dataset_id: datasetId }).distinct().pluck('blob_sha256');
    const anchors: string[] = await trx('search_anchors').where({ dataset_id: datasetId }).distinct().pluck('blob_sha256');
    await recordCandidates(trx, 'blob', [...new Set([...uploaded, ...anchors])]);
    const archives: Array<{ task_id: string; file_name: string }> = await trx('tasks')
      .where({ dataset_id: datasetId, task_type: exportTask.type, status: 'COMPLETED' })
      .whereNull('archive_released_at')
      .whereRaw(`input->>'fileName' IS NOT NULL`)
      .select('task_id', trx.raw(`input->>'fileName' AS file_name`));
    await recordCandidates(trx, 'export_archive', archives.map((row) => archiveKey(row.task_id, row.file_name)));
    // Media of other datasets (clones) may name these uploads: clear them in one statement, not one scan per upload.
    await trx('media').whereIn('uploaded_file_id', trx('uploaded_files').where({ dataset_id: datasetId }).select('id')).update({ uploaded_file_id: null });
    await trx('snapshots').where({ dataset_id: datasetId }).delete();
    await deleteFacetCounts(trx, trx('dataset_versions').where({ dataset_id: datasetId }).select('id'));
    const clusterings: string[] = await trx('dataset_versions').where({ dataset_id: datasetId }).distinct().pluck('clustering_id');
    await trx('datasets').where({ id: datasetId }).delete();
    // Its versions went with it (a cascade); a clone's versions may still read their clusterings.
    await releaseClusterings(trx, clusterings);
    return true;
  });
}

/**
 * Hard-deletes snapshots soft-deleted before `deletedBefore` that no running task reads (a clone or an
 * export of it); returns their datasets (whose versions may now be unused).
 */
export async function purgeDeletedSnapshots(db: Db, deletedBefore: Date, limit: number): Promise<string[]> {
  const expired = db('snapshots as s')
    .where('s.deleted_at', '<=', deletedBefore)
    .whereNotExists(
      db('tasks as t')
        .whereIn('t.status', ACTIVE_TASK_STATUSES)
        .where((reads) => reads.whereRaw(`t.input->>'sourceVersionId' = s.version_id::text`).orWhereRaw(`t.input->>'versionId' = s.version_id::text`)),
    )
    .orderBy('s.deleted_at')
    .limit(limit)
    .select('s.id');
  const rows: Array<{ dataset_id: string }> = await db('snapshots')
    .whereIn('id', expired)
    .delete()
    .returning('dataset_id');
  return [...new Set(rows.map((row) => row.dataset_id))];
}

/** Up to `limit` candidates of one kind in key order, after the key `after` when given (a step that keeps some for its next run). */
export async function releaseCandidates(db: Db, kind: ReleaseKind, limit: number, after: string | null = null): Promise<string[]> {
  const candidates = db('storage_release_candidates').where({ kind });
  if (after !== null) candidates.where('key', '>', after);
  return candidates.orderBy('key').limit(limit).pluck('key');
}

export async function forgetCandidates(db: Db, kind: ReleaseKind, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await db('storage_release_candidates').where({ kind }).whereRaw('key = ANY(?::text[])', [keys]).delete();
}

/** Which of the blobs `sha256s` a live row still names: a media item or thumbnail of any version, an upload, a search anchor. */
export async function blobsInUse(db: Db, sha256s: string[]): Promise<Set<string>> {
  if (sha256s.length === 0) return new Set();
  const { rows } = await db.raw(
    `SELECT blob_sha256 AS sha FROM media WHERE blob_sha256 = ANY(:shas::text[])
     UNION SELECT thumb_sha256 FROM media WHERE thumb_sha256 = ANY(:shas::text[])
     UNION SELECT blob_sha256 FROM uploaded_files WHERE blob_sha256 = ANY(:shas::text[])
     UNION SELECT blob_sha256 FROM search_anchors WHERE blob_sha256 = ANY(:shas::text[])`,
    { shas: sha256s },
  );
  return new Set((rows as Array<{ sha: string }>).map((row) => row.sha));
}

/** Which of the blobs `sha256s` a media item not embedded yet names: the model input prepared from it may still be read. */
export async function blobsAwaitingEmbedding(db: Db, sha256s: string[]): Promise<Set<string>> {
  if (sha256s.length === 0) return new Set();
  const awaiting: string[] = await db('media').whereRaw('blob_sha256 = ANY(?::text[])', [sha256s]).where({ embedded: false }).distinct().pluck('blob_sha256');
  return new Set(awaiting);
}

/**
 * Of the vector candidates `keys` (`<space>/<media id>`), those whose vector may go: a version still
 * reads the space (else the whole space goes, see vectorSpacesInUse) and no version of it holds the media.
 */
export async function unusedVectorPoints(db: Db, keys: string[]): Promise<Array<{ spaceId: string; mediaId: string }>> {
  if (keys.length === 0) return [];
  const { rows } = await db.raw(
    `SELECT p.space_id AS "spaceId", p.media_id AS "mediaId"
     FROM (SELECT split_part(key, '/', 1)::uuid AS space_id, split_part(key, '/', 2)::uuid AS media_id FROM unnest(?::text[]) AS k(key)) p
     WHERE EXISTS (SELECT 1 FROM dataset_versions v WHERE v.vector_space_id = p.space_id)
       AND NOT EXISTS (SELECT 1 FROM dataset_versions v JOIN media m ON m.version_id = v.id AND m.id = p.media_id WHERE v.vector_space_id = p.space_id)`,
    [keys],
  );
  return rows;
}

/** Which of the vector spaces `spaceIds` a version (of any dataset, a clone's included) still reads. */
export async function vectorSpacesInUse(db: Db, spaceIds: string[]): Promise<Set<string>> {
  if (spaceIds.length === 0) return new Set();
  const used: string[] = await db('dataset_versions').whereRaw('vector_space_id = ANY(?::uuid[])', [spaceIds]).distinct().pluck('vector_space_id');
  return new Set(used);
}

/** Finished exports whose archive is older than `endedBefore` and still stored. */
export async function expiredExportArchives(db: Db, endedBefore: Date, limit: number): Promise<Array<{ taskId: string; fileName: string }>> {
  const rows: Array<{ task_id: string; file_name: string }> = await db('tasks')
    .where({ task_type: exportTask.type, status: 'COMPLETED' })
    .whereNull('archive_released_at')
    .where('end_time', '<=', endedBefore)
    .whereRaw(`input->>'fileName' IS NOT NULL`)
    .orderBy('end_time')
    .limit(limit)
    .select('task_id', db.raw(`input->>'fileName' AS file_name`));
  return rows.map((row) => ({ taskId: row.task_id, fileName: row.file_name }));
}

export async function markExportArchivesReleased(db: Db, taskIds: string[]): Promise<void> {
  if (taskIds.length === 0) return;
  await db('tasks').whereIn('task_id', taskIds).update({ archive_released_at: db.fn.now() });
}

/** Rows and bytes of what the collector releases, for tests and benchmarks. */
export async function pendingReleaseCounts(db: Db): Promise<Record<ReleaseKind, number>> {
  const rows: Array<{ kind: ReleaseKind; count: string }> = await db('storage_release_candidates').groupBy('kind').select('kind', db.raw('count(*) AS count'));
  const counts: Record<ReleaseKind, number> = { blob: 0, vector_space: 0, vector_point: 0, export_archive: 0 };
  for (const row of rows) counts[row.kind] = Number(row.count);
  return counts;
}
