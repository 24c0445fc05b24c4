import type { Db } from '../db/connection';
import type { DatasetRow } from '../db/repositories/datasets';
import { mapLegends, mapPointCount, mapPointsPage, mapSummary, mediaIdsAtPoints, type MapLegends, type MapSummary } from '../db/repositories/mapPoints';
import { findVersion } from '../db/repositories/versions';
import { conflict, unprocessable } from '../lib/errors';
import type { MediaFilter } from '../lib/vql/compileVql';
import { requireStatusFor } from './datasetStates';

/** Categories a map colours by, each with a colour of its own; the rest share colour 0. */
export const MAP_LEGEND_SIZE = 19;

export interface DatasetMap extends MapSummary {
  threshold: number;
  legends: MapLegends;
}

async function layoutIdOf(db: Db, dataset: DatasetRow): Promise<string | null> {
  return (await findVersion(db, dataset.head_version_id))?.map_layout_id ?? null;
}

/** How many points the dataset's map has, where they lie, and what each colour means (clusters at `threshold`, labels, issues). */
export async function datasetMap(db: Db, dataset: DatasetRow, threshold: number): Promise<DatasetMap> {
  requireStatusFor(dataset, 'search');
  const versionId = dataset.head_version_id;
  const [summary, legends] = await Promise.all([mapSummary(db, versionId, await layoutIdOf(db, dataset)), mapLegends(db, versionId, threshold, MAP_LEGEND_SIZE)]);
  return { ...summary, threshold, legends };
}

/**
 * Points `offset` … `offset + limit - 1` as one binary page (see mapPointsPage): x and y as
 * little-endian Float32, then cluster, label and issue colours as Uint8, each a column of `count`.
 */
export async function datasetMapPage(
  db: Db,
  dataset: DatasetRow,
  query: { threshold: number; offset: number; limit: number },
): Promise<{ layoutId: string | null; count: number; total: number; bytes: Buffer }> {
  requireStatusFor(dataset, 'search');
  const versionId = dataset.head_version_id;
  const legends = await mapLegends(db, versionId, query.threshold, MAP_LEGEND_SIZE);
  const [page, total, layoutId] = await Promise.all([mapPointsPage(db, versionId, legends, query.threshold, query), mapPointCount(db, versionId), layoutIdOf(db, dataset)]);
  return { layoutId, count: page.x.length / 4, total, bytes: Buffer.concat([page.x, page.y, page.cluster, page.label, page.issue]) };
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
