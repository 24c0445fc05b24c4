import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import type { Db } from '../connection';
import { CLUSTERING_OF, clusteringOf } from './clusteringOf';
import { applyFilter } from './explore';
import { INDEXED_KINDS } from './media';
import type { MediaFilter } from '../../lib/vql/compileVql';

/** Points per statement, written or read (a read binds its media ids as one array). */
const BATCH = 50_000;

export interface MapPoint {
  mediaId: string;
  x: number;
  y: number;
}

export interface MapSummary {
  layoutId: string | null;
  count: number;
  /** Embedded images and frames without a point (added since the last full layout, and not placed). */
  unplaced: number;
  bounds: { min_x: number; max_x: number; min_y: number; max_y: number } | null;
}

/** The most common categories a map colours by; every other point takes colour 0. */
export interface MapLegends {
  clusters: Array<{ cluster_id: string; count: number }>;
  labels: Array<{ label: string; count: number }>;
  issues: Array<{ issue_type: string; count: number }>;
  /** The user's own labels (the declared label field); none before one is declared. */
  classes: Array<{ label: string; count: number }>;
}

/** The columns of a page of points, little-endian: x and y (Float32), then the cluster, label, issue and class colour (Uint8) of each point. */
export interface MapPage {
  x: Buffer;
  y: Buffer;
  cluster: Buffer;
  label: Buffer;
  issue: Buffer;
  class: Buffer;
}

async function insertPoints(trx: Knex.Transaction, versionId: string, points: readonly MapPoint[], firstIndex: number): Promise<void> {
  for (let start = 0; start < points.length; start += BATCH) {
    const batch = points.slice(start, start + BATCH);
    await trx.raw(
      `INSERT INTO map_points (version_id, media_id, point_index, x, y)
       SELECT ?, unnest(?::uuid[]), unnest(?::int[]), unnest(?::real[]), unnest(?::real[])`,
      [versionId, batch.map((p) => p.mediaId), batch.map((_, i) => firstIndex + start + i), batch.map((p) => p.x), batch.map((p) => p.y)],
    );
  }
}

/** Replaces a version's whole map (a full layout named `layoutId`): points are indexed 0 … n-1 in the order given, a slice at a time. */
export async function replaceMapPoints(trx: Knex.Transaction, versionId: string, layoutId: string, slices: Iterable<readonly MapPoint[]>): Promise<void> {
  await trx('map_points').where({ version_id: versionId }).delete();
  let next = 0;
  for (const points of slices) {
    await insertPoints(trx, versionId, points, next);
    next += points.length;
  }
  await trx('dataset_versions').where({ id: versionId }).update({ map_layout_id: layoutId, map_due: null, map_task_id: null });
}

/** A new analysis of the version needs a new layout: the id it will get (the points stay until it replaces them). */
export async function markMapDue(trx: Knex.Transaction, versionId: string): Promise<string> {
  const due = randomUUID();
  await trx('dataset_versions').where({ id: versionId }).update({ map_due: due, map_task_id: null });
  return due;
}

/** Names the task that lays out the version's due layout; the due layout id, or null when none is due. */
export async function claimDueMap(trx: Knex.Transaction, versionId: string, taskId: string): Promise<string | null> {
  const [row] = await trx('dataset_versions').where({ id: versionId }).whereNotNull('map_due').update({ map_task_id: taskId }).returning('map_due');
  return row?.map_due ?? null;
}

/**
 * Writes the due layout `layoutId` of a version (its points a slice at a time), and copies them to every copy of the
 * version made while it was due (the creation snapshot, a restore or clone of it) for the media the copy has. False,
 * writing nothing, when `layoutId` is no longer due (a later analysis is due another).
 */
export async function writeDueMap(trx: Knex.Transaction, versionId: string, layoutId: string, slices: Iterable<readonly MapPoint[]>): Promise<boolean> {
  const due = await trx('dataset_versions').where({ id: versionId, map_due: layoutId }).forUpdate().first('id');
  if (!due) return false;
  await replaceMapPoints(trx, versionId, layoutId, slices);
  const copies: string[] = await trx('dataset_versions').where({ map_due: layoutId }).whereNot({ id: versionId }).pluck('id');
  for (const copy of copies) {
    await trx('map_points').where({ version_id: copy }).delete();
    await trx.raw(
      `INSERT INTO map_points (version_id, media_id, point_index, x, y)
       SELECT ?, p.media_id, row_number() OVER (ORDER BY p.point_index) - 1, p.x, p.y
       FROM map_points p JOIN media m ON m.version_id = ? AND m.id = p.media_id WHERE p.version_id = ?`,
      [copy, copy, versionId],
    );
    await trx('dataset_versions').where({ id: copy }).update({ map_layout_id: layoutId, map_due: null, map_task_id: null });
  }
  return true;
}

/** Whether a version's map is due a layout, and the state of the task laying it out (none before one is recorded). */
export async function mapLayoutState(db: Db, versionId: string): Promise<{ due: boolean; taskId: string | null; taskStatus: string | null; error: string | null }> {
  const row = await db('dataset_versions as v')
    .leftJoin('tasks as t', 't.task_id', 'v.map_task_id')
    .where('v.id', versionId)
    .first('v.map_due', 'v.map_task_id', 't.status', 't.error_message');
  return { due: Boolean(row?.map_due), taskId: row?.map_task_id ?? null, taskStatus: row?.status ?? null, error: row?.error_message ?? null };
}

/** Adds points after the version's last one, so the indexes a client holds keep naming the same media. Points already there are skipped. */
export async function appendMapPoints(trx: Knex.Transaction, versionId: string, points: readonly MapPoint[]): Promise<void> {
  const present = new Set((await mapPointsOf(trx, versionId, points.map((p) => p.mediaId))).map((p) => p.mediaId));
  const fresh = points.filter((p) => !present.has(p.mediaId));
  const { next } = await trx('map_points').where({ version_id: versionId }).first(trx.raw('coalesce(max(point_index) + 1, 0)::int AS next'));
  await insertPoints(trx, versionId, fresh, next);
}

export async function mapPointsOf(db: Db, versionId: string, mediaIds: readonly string[]): Promise<MapPoint[]> {
  const points: MapPoint[] = [];
  for (let i = 0; i < mediaIds.length; i += BATCH) {
    const batch = mediaIds.slice(i, i + BATCH);
    for (const point of await db('map_points').where({ version_id: versionId }).whereRaw('media_id = ANY(?::uuid[])', [batch]).select('media_id as mediaId', 'x', 'y')) points.push(point);
  }
  return points;
}

export async function mapSummary(db: Db, versionId: string, layoutId: string | null): Promise<MapSummary> {
  const points = await db('map_points')
    .where({ version_id: versionId })
    .first(db.raw('count(*)::int AS count, min(x) AS min_x, max(x) AS max_x, min(y) AS min_y, max(y) AS max_y'));
  const { unplaced } = await db('media as m')
    .where({ 'm.version_id': versionId, 'm.embedded': true })
    .whereIn('m.kind', INDEXED_KINDS)
    .whereNotExists(db('map_points as p').whereRaw('p.version_id = m.version_id AND p.media_id = m.id'))
    .first(db.raw('count(*)::int AS unplaced'));
  const bounds = points.count > 0 ? { min_x: points.min_x, max_x: points.max_x, min_y: points.min_y, max_y: points.max_y } : null;
  return { layoutId, count: points.count, unplaced, bounds };
}

export async function mapLegends(db: Db, versionId: string, threshold: number, size: number): Promise<MapLegends> {
  // A media item has a label (an issue) at most once (the tables' primary keys), so count(*) counts media, without count(DISTINCT)'s sort.
  const [clusters, labels, issues, classes] = await Promise.all([
    db('clusters').where({ clustering_id: clusteringOf(db, versionId), threshold }).orderBy([{ column: 'size', order: 'desc' }, 'id']).limit(size).select('id as cluster_id', 'size as count'),
    db('media_labels').where({ version_id: versionId }).groupBy('label').orderBy([{ column: 'count', order: 'desc' }, 'label']).limit(size).select('label', db.raw('count(*)::int AS count')),
    db('media_issues').where({ version_id: versionId }).groupBy('issue_type').orderBy([{ column: 'count', order: 'desc' }, 'issue_type']).limit(size).select('issue_type', db.raw('count(*)::int AS count')),
    db('media as m')
      .join('dataset_versions as v', 'v.id', 'm.version_id')
      .where('m.version_id', versionId)
      .whereRaw(`m.custom_metadata ->> (v.label_quality->>'label_field') IS NOT NULL`)
      .groupByRaw('1')
      .orderBy([{ column: 'count', order: 'desc' }, 'label'])
      .limit(size)
      .select(db.raw(`m.custom_metadata ->> (v.label_quality->>'label_field') AS label`), db.raw('count(*)::int AS count')),
  ]);
  return { clusters, labels, issues, classes };
}

/**
 * Points `offset` … `offset + limit - 1` of a version's map as columns, built by Postgres itself
 * (one row of byte strings, not a row per point): a point's colour is its legend position + 1, 0 for
 * none; a point with several labels or issues takes the most common one.
 */
export async function mapPointsPage(db: Db, versionId: string, legends: MapLegends, threshold: number, page: { offset: number; limit: number }): Promise<MapPage> {
  // Rows come sorted once from the subquery and the aggregates keep that order (as Postgres documents), instead of five sorts.
  const column = (expr: string) => `string_agg(${expr}, '')`;
  const byte = (expr: string) => column(`set_byte('\\x00'::bytea, 0, coalesce(${expr}, 0)::int)`);
  // Colours are looked up for the page's points only (by the tables' keys), so a first page costs what its points cost, not the dataset.
  const { rows } = await db.raw(
    `WITH pts AS (SELECT media_id, x, y, point_index FROM map_points WHERE version_id = ? AND point_index >= ? AND point_index < ?),
          cl AS (SELECT cm.media_id, l.n FROM pts JOIN cluster_members cm ON cm.clustering_id = ${CLUSTERING_OF} AND cm.threshold = ? AND cm.media_id = pts.media_id
                 JOIN unnest(?::uuid[]) WITH ORDINALITY AS l(id, n) ON cm.cluster_id = l.id),
          lb AS (SELECT ml.media_id, min(l.n) AS n FROM pts JOIN media_labels ml ON ml.version_id = ? AND ml.media_id = pts.media_id
                 JOIN unnest(?::text[]) WITH ORDINALITY AS l(label, n) ON ml.label = l.label GROUP BY ml.media_id),
          iss AS (SELECT mi.media_id, min(l.n) AS n FROM pts JOIN media_issues mi ON mi.version_id = ? AND mi.media_id = pts.media_id
                  JOIN unnest(?::text[]) WITH ORDINALITY AS l(issue_type, n) ON mi.issue_type = l.issue_type GROUP BY mi.media_id),
          cls AS (SELECT pts.media_id, l.n FROM pts JOIN media m ON m.version_id = ? AND m.id = pts.media_id
                  JOIN dataset_versions v ON v.id = m.version_id
                  JOIN unnest(?::text[]) WITH ORDINALITY AS l(label, n) ON m.custom_metadata ->> (v.label_quality->>'label_field') = l.label)
     SELECT ${column('float4send(p.x)')} AS x, ${column('float4send(p.y)')} AS y, ${byte('p.cn')} AS cluster, ${byte('p.ln')} AS label, ${byte('p.isn')} AS issue,
            ${byte('p.csn')} AS class
     FROM (SELECT pts.x, pts.y, cl.n AS cn, lb.n AS ln, iss.n AS isn, cls.n AS csn
           FROM pts LEFT JOIN cl USING (media_id) LEFT JOIN lb USING (media_id) LEFT JOIN iss USING (media_id) LEFT JOIN cls USING (media_id)
           ORDER BY pts.point_index) p`,
    [
      versionId,
      page.offset,
      page.offset + page.limit,
      versionId,
      threshold,
      legends.clusters.map((c) => c.cluster_id),
      versionId,
      legends.labels.map((l) => l.label),
      versionId,
      legends.issues.map((i) => i.issue_type),
      versionId,
      legends.classes.map((c) => c.label),
    ],
  );
  const row = rows[0] as Partial<MapPage>;
  const empty = Buffer.alloc(0);
  // float4send writes big-endian; typed arrays in the browser read the machine's order, little-endian everywhere that matters.
  return {
    x: row.x ? row.x.swap32() : empty,
    y: row.y ? row.y.swap32() : empty,
    cluster: row.cluster ?? empty,
    label: row.label ?? empty,
    issue: row.issue ?? empty,
    class: row.class ?? empty,
  };
}

/** What a version's map summary and legends depend on, read from indexes alone (no scan of a million rows). */
export interface MapStamp {
  layoutId: string | null;
  /** Points on the map: indexes are dense, so the last one's + 1. */
  count: number;
  /** The dataset's last change of a task (every task that writes labels, issues, clusters or points updates its row) or of its own row. */
  changedAt: Date | null;
}

export async function mapStamp(db: Db, datasetId: string, versionId: string): Promise<MapStamp> {
  const { rows } = await db.raw(
    `SELECT v.map_layout_id AS "layoutId",
            (SELECT coalesce(max(point_index) + 1, 0)::int FROM map_points WHERE version_id = v.id) AS count,
            greatest((SELECT max(updated_at) FROM tasks WHERE dataset_id = ?), (SELECT updated_at FROM datasets WHERE id = ?)) AS "changedAt"
     FROM dataset_versions v WHERE v.id = ?`,
    [datasetId, datasetId, versionId],
  );
  return rows[0] ?? { layoutId: null, count: 0, changedAt: null };
}

/** The media ids at point indexes `indices`, in their order; undefined for an index without a point. */
/** The indexes of the version's map points whose media pass every one of `filters` (Explore's row predicates), ascending. */
export async function pointIndexesMatching(db: Db, versionId: string, filters: readonly MediaFilter[]): Promise<number[]> {
  const query = db('map_points as p')
    .join('media as m', (join) => join.on('m.version_id', 'p.version_id').andOn('m.id', 'p.media_id'))
    .where('p.version_id', versionId)
    .orderBy('p.point_index');
  for (const filter of filters) applyFilter(query, db, filter);
  return query.pluck('p.point_index');
}

export async function mediaIdsAtPoints(db: Db, versionId: string, indices: readonly number[]): Promise<Array<string | undefined>> {
  const rows: Array<{ point_index: number; media_id: string }> = await db('map_points')
    .where({ version_id: versionId })
    .whereRaw('point_index = ANY(?::int[])', [[...indices]])
    .select('point_index', 'media_id');
  const byIndex = new Map(rows.map((row) => [row.point_index, row.media_id]));
  return indices.map((index) => byIndex.get(index));
}

