import type { Knex } from 'knex';
import type { Db } from '../connection';
import { clusteringOf } from './clusteringOf';
import { CLUSTER_SIMILARITY_CUTOFFS } from '../../lib/clustering/clusterByThresholds';
import { batchSourceOf, type BatchSource, type ExportRow } from '../../lib/export/exportRecord';
import { exportTask } from '../../lib/tasks/export';
import { byCodePoint, type UserClasses } from '../../lib/export/userClasses';

/** Every clustering threshold (0 finest to 4). */
const THRESHOLDS = CLUSTER_SIMILARITY_CUTOFFS.map((_, threshold) => threshold);

/** Media picked by id (a video's id picks its frames too) and whole clusters less some media. */
export interface ExportSelection {
  mediaIds: string[];
  clusters: Array<{ clusterId: string; excludeMediaIds: string[] }>;
  /** The images holding an object of each cluster (`media_objects.cluster_ids` at any threshold), less some media. */
  objectClusters?: Array<{ clusterId: string; excludeMediaIds: string[] }>;
}

const clustersJson = (clusters: ExportSelection['clusters']) => JSON.stringify(clusters.map((cluster) => ({ cluster_id: cluster.clusterId, exclude: cluster.excludeMediaIds })));
const CLUSTERS_RECORDSET = 'jsonb_to_recordset(?::jsonb) AS s(cluster_id uuid, exclude uuid[])';

/** What an export reads: one version, as it was when the export was asked for. */
export interface ExportScope {
  versionId: string;
  /** Media that arrived later (a batch added after the request) are not exported. */
  createdBefore: Date;
  /** Every media item of the version when absent. */
  selection?: ExportSelection;
  /** Leave out the copies a duplicate review discarded. */
  excludeDiscarded: boolean;
  /** Leave out the frames that repeat an earlier frame of their video, unless the selection names them. */
  excludeRepeatedFrames: boolean;
}

/** The selected media ids of `scope` (its own CTE, so each page joins it instead of testing every row). */
function selectedIds(db: Db, scope: ExportScope & { selection: ExportSelection }): Knex.QueryBuilder {
  const { versionId, selection } = scope;
  const query = db
    .select('id')
    .from('media')
    .where('version_id', versionId)
    .where((where) => where.whereRaw('id = ANY(?::uuid[])', [selection.mediaIds]).orWhereRaw('parent_id = ANY(?::uuid[])', [selection.mediaIds]))
    .union((union) =>
      union
        .select('cm.media_id')
        .from('cluster_members as cm')
        .joinRaw(`JOIN ${CLUSTERS_RECORDSET} ON s.cluster_id = cm.cluster_id`, [clustersJson(selection.clusters)])
        .where('cm.clustering_id', clusteringOf(db, versionId))
        .whereRaw('NOT (cm.media_id = ANY(coalesce(s.exclude, ARRAY[]::uuid[])))'),
    );
  if (selection.objectClusters?.length) {
    query.union((union) =>
      union
        .select('o.media_id')
        .from('media_objects as o')
        .joinRaw(`JOIN ${CLUSTERS_RECORDSET} ON s.cluster_id = ANY(o.cluster_ids)`, [clustersJson(selection.objectClusters!)])
        .where('o.version_id', versionId)
        .whereRaw('NOT (o.media_id = ANY(coalesce(s.exclude, ARRAY[]::uuid[])))'),
    );
  }
  return query;
}

/** The exported media of `scope`, whatever the page: the version's rows (that arrived in time) and the selection. */
function scoped(db: Db, scope: ExportScope): Knex.QueryBuilder {
  const query = db('media as m').where('m.version_id', scope.versionId).where('m.created_at', '<=', scope.createdBefore);
  if (scope.selection) query.whereIn('m.id', selectedIds(db, { ...scope, selection: scope.selection }));
  if (scope.excludeRepeatedFrames) {
    const named = scope.selection?.mediaIds ?? [];
    query.where((where) => where.whereNull('m.repeat_of_frame').orWhereRaw('m.id = ANY(?::uuid[])', [named]));
  }
  if (scope.excludeDiscarded) {
    // A discarded video's frames go with it.
    query.whereNotExists(db('duplicate_decisions as dd').whereRaw("dd.version_id = m.version_id AND dd.media_id IN (m.id, m.parent_id) AND dd.role = 'discard'"));
  }
  return query;
}

export async function countExportMedia(db: Db, scope: ExportScope): Promise<number> {
  const [{ count }] = await scoped(db, scope).count({ count: '*' });
  return Number(count);
}

/**
 * The next `limit` exported media after `afterId` (keyset paging in id order), each with its
 * issues, labels, tags, clusters and detected objects, and what naming its file needs: the image or video it came as
 * and how many earlier images and videos of the version share that name (case-insensitively).
 */
export async function exportPage(db: Db, scope: ExportScope, afterId: string | null, limit: number): Promise<ExportRow[]> {
  const query = scoped(db, scope)
    .leftJoin('media as p', (join) => join.on('p.version_id', 'm.version_id').andOn('p.id', 'm.parent_id'))
    .select(
      'm.id',
      'm.kind',
      'm.parent_id',
      'm.file_name',
      'm.batch_id',
      'm.blob_sha256',
      db.raw('m.size_bytes::float8 AS size_bytes'),
      'm.format',
      'm.width',
      'm.height',
      'm.duration_ms',
      'm.frame_index',
      'm.frame_time_ms',
      'm.uniqueness_score',
      'm.caption',
      'm.custom_metadata',
      'm.created_at',
      db.raw('coalesce(p.id, m.id) AS top_id'),
      db.raw('coalesce(p.file_name, m.file_name) AS top_file_name'),
      db.raw(`(SELECT count(*)::int FROM media o
               WHERE o.version_id = m.version_id AND o.parent_id IS NULL
                 AND lower(o.file_name) = lower(coalesce(p.file_name, m.file_name))
                 AND (o.created_at, o.id) < (coalesce(p.created_at, m.created_at), coalesce(p.id, m.id))) AS top_name_rank`),
      db.raw(`(SELECT json_agg(json_build_object('type', i.issue_type, 'confidence', i.confidence, 'details', i.details) ORDER BY i.issue_type)
               FROM media_issues i WHERE i.version_id = m.version_id AND i.media_id = m.id) AS issues`),
      db.raw(`(SELECT json_agg(json_build_object('label', l.label, 'source', l.source, 'confidence', l.confidence) ORDER BY l.label)
               FROM media_labels l WHERE l.version_id = m.version_id AND l.media_id = m.id) AS labels`),
      db.raw(`(SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.name)
               FROM media_tags mt JOIN tags t ON t.version_id = mt.version_id AND t.id = mt.tag_id
               WHERE mt.version_id = m.version_id AND mt.media_id = m.id) AS tags`),
      db.raw(`(SELECT json_agg(json_build_object('label', o.label, 'confidence', o.confidence, 'bounding_box',
                 json_build_object('x', o.box_x, 'y', o.box_y, 'width', o.box_width, 'height', o.box_height)) ORDER BY o.confidence DESC, o.id)
               FROM media_objects o WHERE o.version_id = m.version_id AND o.media_id = m.id) AS objects`),
      // The thresholds are named so the key (clustering_id, threshold, media_id) serves the lookup without a skip scan (Postgres < 18).
      db.raw(
        `(SELECT json_object_agg(cm.threshold, cm.cluster_id) FROM cluster_members cm
          WHERE cm.clustering_id = (SELECT v.clustering_id FROM dataset_versions v WHERE v.id = m.version_id) AND cm.threshold = ANY(?::smallint[]) AND cm.media_id = m.id) AS clusters`,
        [THRESHOLDS],
      ),
    )
    .orderBy('m.id')
    .limit(limit);
  if (afterId) query.where('m.id', '>', afterId);
  return query;
}

/**
 * Which of `names` are the file name of an image or video of the version that arrived by
 * `createdBefore`, compared as export names are (case-insensitively).
 */
export async function ownedFileNames(db: Db, versionId: string, createdBefore: Date, names: string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows: Array<{ name: string }> = await db
    .select('c.name')
    .from(db.raw('unnest(?::text[]) AS c(name)', [names]))
    .whereExists(
      db('media as o')
        .where('o.version_id', versionId)
        .whereNull('o.parent_id')
        .where('o.created_at', '<=', createdBefore)
        .whereRaw('lower(o.file_name) = lower(c.name)'),
    );
  return new Set(rows.map((row) => row.name));
}

/** Where each batch of the version's media came from, by batch id (from the tasks that brought them in). */
export async function batchSources(db: Db, versionId: string): Promise<Map<string, BatchSource>> {
  const rows: Array<{ batch_id: string; task_type: string; source: unknown }> = await db('tasks')
    .whereRaw(`input->>'batchId' IN (SELECT DISTINCT batch_id::text FROM media WHERE version_id = ?)`, [versionId])
    .select(db.raw(`input->>'batchId' AS batch_id`), 'task_type', db.raw(`input->'source' AS source`));
  const sources = new Map<string, BatchSource>();
  for (const row of rows) {
    const source = batchSourceOf(row.task_type, row.source);
    if (source) sources.set(row.batch_id, source);
  }
  return sources;
}

/** The media ids and cluster ids of a selection that the version does not hold (first ten of each). */
export async function unknownSelectionIds(
  db: Db,
  versionId: string,
  selection: { mediaIds: string[]; clusterIds: string[]; objectClusterIds: string[] },
): Promise<{ mediaIds: string[]; clusterIds: string[]; objectClusterIds: string[] }> {
  const missing = async (ids: string[], held: (c: string) => Knex.QueryBuilder) => {
    if (ids.length === 0) return [];
    const rows: Array<{ id: string }> = await db
      .select('c.id')
      .from(db.raw('unnest(?::uuid[]) WITH ORDINALITY AS c(id, n)', [ids]))
      .whereNotExists(held('c.id'))
      .orderBy('c.n')
      .limit(10);
    return rows.map((row) => row.id);
  };
  const heldIn = (table: 'media' | 'clusters') => (id: string) =>
    db(table)
      .where(table === 'media' ? 'version_id' : 'clustering_id', table === 'media' ? versionId : clusteringOf(db, versionId))
      .whereRaw(`${table}.id = ${id}`);
  return {
    mediaIds: await missing(selection.mediaIds, heldIn('media')),
    clusterIds: await missing(selection.clusterIds, heldIn('clusters')),
    objectClusterIds: await missing(selection.objectClusterIds, (id) => db('media_objects as o').where('o.version_id', versionId).whereRaw(`${id} = ANY(o.cluster_ids)`)),
  };
}

/**
 * Runs `read` in one read-only, repeatable-read transaction, so every page of an export sees the
 * version as it was at its first read (a tag changed meanwhile is in it whole or not at all).
 */
export async function readConsistently<T>(db: Db, read: (snapshot: Db) => Promise<T>): Promise<T> {
  return db.transaction((trx) => read(trx), { isolationLevel: 'repeatable read', readOnly: true });
}

/** An export task by id, whoever asks (its download link is the credential). */
export async function findExportTask(db: Db, taskId: string): Promise<{ taskId: string; status: string; fileName: string | undefined } | undefined> {
  const row = await db('tasks').where({ task_id: taskId, task_type: exportTask.type }).first('task_id', 'status', db.raw(`input->>'fileName' AS file_name`));
  return row && { taskId: row.task_id, status: row.status, fileName: row.file_name ?? undefined };
}

/**
 * The user's classes of a version, as exports write them: its declared label (and split) field, and
 * every distinct trimmed, non-empty text value of the label field among its media (strings, numbers
 * and booleans, as `->>` gives them), in code-point order; null when the version declares no label field.
 */
export async function exportClasses(db: Db, versionId: string): Promise<UserClasses | null> {
  const version = await db('dataset_versions').where({ id: versionId }).first('label_quality');
  const report = version?.label_quality as { label_field?: string; split_field?: string | null } | null | undefined;
  if (!report?.label_field) return null;
  const { rows } = await db.raw(
    `SELECT DISTINCT btrim(custom_metadata->>?) AS name FROM media
      WHERE version_id = ? AND jsonb_typeof(custom_metadata->?) IN ('string', 'number', 'boolean') AND btrim(custom_metadata->>?) <> ''`,
    [report.label_field, versionId, report.label_field, report.label_field],
  );
  const names = (rows as Array<{ name: string }>).map((row) => row.name).sort(byCodePoint);
  return { labelField: report.label_field, splitField: report.split_field ?? null, names };
}
