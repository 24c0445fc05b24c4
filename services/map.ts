import { createHash } from 'node:crypto';
import type { Db } from '../db/connection';
import type { DatasetRow } from '../db/repositories/datasets';
import { mapLayoutState, mapLegends, mapPointsPage, mapStamp, mapSummary, mediaIdsAtPoints, pointIndexesMatching, type MapLegends, type MapSummary } from '../db/repositories/mapPoints';
import { findVersion } from '../db/repositories/versions';
import { conflict, unprocessable } from '../lib/errors';
import type { MediaFilter } from '../lib/vql/compileVql';
import { requireStatusFor } from './datasetStates';

/** Categories a map colours by, each with a colour of its own; the rest share colour 0. */
export const MAP_LEGEND_SIZE = 19;

/** Whether the map is laid out: `laying_out` while its MAP_LAYOUT task runs after an analysis, `failed` when that task failed. */
export type MapLayoutStatus = 'ready' | 'laying_out' | 'failed';

export interface DatasetMap extends MapSummary {
  threshold: number;
  legends: MapLegends;
  layout: { status: MapLayoutStatus; taskId: string | null; error: string | null };
}

/** The layout's status: a due layout is being laid out until its task ends without writing it. */
async function layoutStatusOf(db: Db, dataset: DatasetRow): Promise<DatasetMap['layout']> {
  const state = await mapLayoutState(db, dataset.head_version_id);
  if (!state.due) return { status: 'ready', taskId: null, error: null };
  const failed = state.taskStatus === 'FAILED' || state.taskStatus === 'ABORTED';
  return { status: failed ? 'failed' : 'laying_out', taskId: state.taskId, error: failed ? state.error : null };
}

async function layoutIdOf(db: Db, dataset: DatasetRow): Promise<string | null> {
  return (await findVersion(db, dataset.head_version_id))?.map_layout_id ?? null;
}

/**
 * Summaries and legends are computed at most once per version (and threshold) and stamp, and at most
 * a minute apart (a label edited outside a task shows within one): at 1,000,000 points each takes
 * seconds of scans and group-bys, and every page of points needs the legends. Requests that arrive
 * together share one computation.
 */
const CACHE_MS = 60_000;
const CACHE_ENTRIES = 64;
const computed = new Map<string, { stamp: string; at: number; value: Promise<unknown> }>();

function memoized<T>(key: string, stamp: string, compute: () => Promise<T>): Promise<T> {
  const entry = computed.get(key);
  if (entry && entry.stamp === stamp && Date.now() - entry.at <= CACHE_MS) return entry.value as Promise<T>;
  const fresh = { stamp, at: Date.now(), value: compute() };
  computed.delete(key);
  computed.set(key, fresh);
  if (computed.size > CACHE_ENTRIES) computed.delete(computed.keys().next().value!);
  fresh.value.catch(() => computed.get(key) === fresh && computed.delete(key));
  return fresh.value;
}

/** The map's stamp: what its summary and legends depend on (layout, point count, last change of the dataset or its tasks). */
async function stampOf(db: Db, dataset: DatasetRow): Promise<{ stamp: string; layoutId: string | null; count: number }> {
  const current = await mapStamp(db, dataset.id, dataset.head_version_id);
  return { ...current, stamp: `${current.layoutId}:${current.count}:${current.changedAt?.toISOString()}` };
}

const legendsOf = (db: Db, dataset: DatasetRow, stamp: string, threshold: number) =>
  memoized(`legends:${dataset.head_version_id}:${threshold}`, stamp, () => mapLegends(db, dataset.head_version_id, threshold, MAP_LEGEND_SIZE));

/** How many points the dataset's map has, where they lie, what each colour means (clusters at `threshold`, labels, issues), and whether it is being laid out. */
export async function datasetMap(db: Db, dataset: DatasetRow, threshold: number): Promise<DatasetMap> {
  requireStatusFor(dataset, 'search');
  const { stamp, layoutId } = await stampOf(db, dataset);
  const [summary, legends, layout] = await Promise.all([
    memoized(`summary:${dataset.head_version_id}`, stamp, () => mapSummary(db, dataset.head_version_id, layoutId)),
    legendsOf(db, dataset, stamp, threshold),
    layoutStatusOf(db, dataset),
  ]);
  return { ...summary, threshold, legends, layout };
}

/**
 * Points `offset` … `offset + limit - 1` as one binary page (see mapPointsPage): x and y as
 * little-endian Float32, then cluster, label and issue colours as Uint8, each a column of `count`.
 * `etag` names the page's content (layout, points, legends), known before `read` builds it, so a
 * client holding it is answered without reading a point.
 */
export async function datasetMapPage(
  db: Db,
  dataset: DatasetRow,
  query: { threshold: number; offset: number; limit: number },
): Promise<{ layoutId: string | null; total: number; etag: string; read(): Promise<{ count: number; bytes: Buffer }> }> {
  requireStatusFor(dataset, 'search');
  const { stamp, layoutId, count } = await stampOf(db, dataset);
  const etag = createHash('sha256').update(`${dataset.head_version_id}:${stamp}:${query.threshold}:${query.offset}:${query.limit}`).digest('base64url').slice(0, 27);
  return {
    layoutId,
    total: count,
    etag,
    async read() {
      const legends = await legendsOf(db, dataset, stamp, query.threshold);
      const page = await mapPointsPage(db, dataset.head_version_id, legends, query.threshold, query);
      return { count: page.x.length / 4, bytes: Buffer.concat([page.x, page.y, page.cluster, page.label, page.issue, page.class]) };
    },
  };
}

/**
 * Which points of the dataset's map pass Explore's filters: a bitmap of `total` bits (point i is bit i % 8 of byte
 * i / 8), the layout its indexes belong to, and how many match. 409 for a map region of another layout.
 */
export async function datasetMapMatches(
  db: Db,
  dataset: DatasetRow,
  filters: readonly MediaFilter[],
): Promise<{ layoutId: string | null; total: number; matched: number; bitmap: Buffer }> {
  requireStatusFor(dataset, 'search');
  await requireCurrentMapLayout(db, dataset, filters);
  const [{ layoutId, count }, indexes] = await Promise.all([stampOf(db, dataset), pointIndexesMatching(db, dataset.head_version_id, filters)]);
  const bitmap = Buffer.alloc(Math.ceil(count / 8));
  for (const i of indexes) if (i < count) bitmap[i >> 3] |= 1 << (i & 7);
  return { layoutId, total: count, matched: indexes.length, bitmap };
}

const STALE_LAYOUT = 'The map was laid out anew since it was loaded; load it again';

/**
 * 409 when a map region (VQL `map`) names a layout other than the dataset's current one: a reindex lays
 * the map out anew, and a polygon drawn on the old layout would select other media.
 */
export async function requireCurrentMapLayout(db: Db, dataset: DatasetRow, filters: readonly MediaFilter[]): Promise<void> {
  const regions = filters.filter((filter) => filter.kind === 'mapRegion');
  if (regions.length === 0) return;
  const current = await layoutIdOf(db, dataset);
  if (regions.some((region) => region.layoutId !== current)) throw conflict(`vql: map region: ${STALE_LAYOUT}, then lasso again`);
}

/** The media ids of the points at `indices` of layout `layoutId`; 409 when the map was laid out anew since. */
export async function mediaAtMapPoints(db: Db, dataset: DatasetRow, layoutId: string, indices: readonly number[]): Promise<string[]> {
  requireStatusFor(dataset, 'search');
  if ((await layoutIdOf(db, dataset)) !== layoutId) throw conflict(STALE_LAYOUT);
  const ids = await mediaIdsAtPoints(db, dataset.head_version_id, indices);
  const missing = indices.filter((_, i) => ids[i] === undefined);
  if (missing.length > 0) throw unprocessable(`body.indices: no point at ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''}`);
  return ids as string[];
}
