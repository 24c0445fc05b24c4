import { useEffect, useState } from 'react';
import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';

export type DatasetMap = Schemas['DatasetMap'];
export type ColourBy = 'cluster' | 'label' | 'issue' | 'class';

/** The map's points as columns of `total`, of which the first `loaded` have arrived (see GET /dataset/{id}/map/points). */
export interface MapPoints {
  layoutId: string | null;
  total: number;
  loaded: number;
  x: Float32Array;
  y: Float32Array;
  colours: Record<ColourBy, Uint8Array>;
}

/**
 * Points of the map's sample: the first page, drawn at once (the rest are drawn when they arrive), and
 * what the map draws while it moves (MapCanvas). The worker stores a map's points in a random order, so
 * the first ones are an even sample of the whole map.
 */
export const SAMPLE_POINTS = 20_000;

export const mapKeys = {
  all: (datasetId: string) => ['map', datasetId] as const,
  summary: (datasetId: string, threshold: number) => ['map', datasetId, 'summary', threshold] as const,
  matches: (datasetId: string, vql: string, layoutId: string | null) => ['map', datasetId, 'matches', vql, layoutId] as const,
};

/** Which points of layout `layoutId` pass Explore's filters: 1 per point that passes (see GET …/map/matches). */
export interface MapMatches {
  layoutId: string | null;
  matched: number;
  passes: Uint8Array;
}

export async function fetchMatches(datasetId: string, vql: string): Promise<MapMatches> {
  const result = await api.GET('/api/v1/dataset/{dataset_id}/map/matches', { params: { path: { dataset_id: datasetId }, query: { vql } }, parseAs: 'arrayBuffer' });
  const bitmap = new Uint8Array(unwrap(result) as unknown as ArrayBuffer);
  const header = (name: string) => result.response.headers.get(name);
  const passes = new Uint8Array(Number(header('X-Map-Total')));
  for (let i = 0; i < passes.length; i++) passes[i] = (bitmap[i >> 3] >> (i & 7)) & 1;
  return { layoutId: header('X-Map-Layout-Id'), matched: Number(header('X-Map-Matches')), passes };
}

export async function fetchMap(datasetId: string, threshold: number): Promise<DatasetMap> {
  return unwrap(await api.GET('/api/v1/dataset/{dataset_id}/map', { params: { path: { dataset_id: datasetId }, query: { threshold } } }));
}

/** How often the summary is asked again while the map is being laid out (its MAP_LAYOUT task runs after the dataset is READY). */
const LAYING_OUT_POLL_MS = 2000;

export const mapQueries = {
  /** The map's bounds, legends and counts at a clustering threshold; asked again while the map is being laid out. */
  /** The points of the loaded layout that pass Explore's filters (`vql`, the JSON array Explore's URL holds). */
  matches: (datasetId: string, vql: string, layoutId: string | null) =>
    queryOptions({ queryKey: mapKeys.matches(datasetId, vql, layoutId), queryFn: () => fetchMatches(datasetId, vql) }),
  summary: (datasetId: string, threshold: number) =>
    queryOptions({
      queryKey: mapKeys.summary(datasetId, threshold),
      queryFn: () => fetchMap(datasetId, threshold),
      refetchInterval: (query) => (query.state.data?.layout_status === 'laying_out' ? LAYING_OUT_POLL_MS : false),
    }),
};

async function fetchPage(datasetId: string, threshold: number, offset: number, limit?: number) {
  const result = await api.GET('/api/v1/dataset/{dataset_id}/map/points', {
    params: { path: { dataset_id: datasetId }, query: { threshold, offset, limit } },
    parseAs: 'arrayBuffer',
  });
  const bytes = unwrap(result) as unknown as ArrayBuffer;
  const header = (name: string) => result.response.headers.get(name);
  return { bytes, count: Number(header('X-Map-Points')), total: Number(header('X-Map-Total')), layoutId: header('X-Map-Layout-Id') };
}

/**
 * Every point of the map into one set of columns: a first page of SAMPLE_POINTS, then the rest (the
 * API's largest pages). `onPage` sees the columns after each page. Needs nothing from GET …/map, so both load at once.
 */
export async function fetchPoints(datasetId: string, threshold: number, onPage: (points: MapPoints) => void): Promise<MapPoints> {
  let page = await fetchPage(datasetId, threshold, 0, SAMPLE_POINTS);
  const total = page.total;
  const points: MapPoints = {
    layoutId: page.layoutId,
    total,
    loaded: 0,
    x: new Float32Array(total),
    y: new Float32Array(total),
    colours: { cluster: new Uint8Array(total), label: new Uint8Array(total), issue: new Uint8Array(total), class: new Uint8Array(total) },
  };
  for (;;) {
    const [offset, n] = [points.loaded, Math.min(page.count, total - points.loaded)];
    points.x.set(new Float32Array(page.bytes, 0, n), offset);
    points.y.set(new Float32Array(page.bytes, page.count * 4, n), offset);
    (['cluster', 'label', 'issue', 'class'] as const).forEach((by, column) => points.colours[by].set(new Uint8Array(page.bytes, page.count * (8 + column), n), offset));
    points.loaded += n;
    onPage({ ...points });
    if (points.loaded >= total || n === 0) return points;
    page = await fetchPage(datasetId, threshold, points.loaded);
    if (page.layoutId !== points.layoutId) throw new Error('The map was laid out anew while it loaded: load the page again');
  }
}

/**
 * The map's points as they load: undefined until the first page is in (a new object after each page). A new
 * `layoutId` (the summary's, once a layout is written) loads them again; undefined keeps what is loaded.
 */
export function useMapPoints(datasetId: string, threshold: number, layoutId?: string | null): { points?: MapPoints; error: Error | null } {
  const [state, setState] = useState<{ points?: MapPoints; error: Error | null }>({ error: null });
  const [load, setLoad] = useState(0);
  const loadedLayout = state.points?.layoutId;
  useEffect(() => {
    if (layoutId !== undefined && loadedLayout !== undefined && layoutId !== loadedLayout) setLoad((n) => n + 1);
  }, [layoutId, loadedLayout]);
  useEffect(() => {
    let live = true;
    setState({ error: null });
    fetchPoints(datasetId, threshold, (points) => live && setState({ points, error: null })).catch((error: Error) => live && setState({ error }));
    return () => {
      live = false;
    };
  }, [datasetId, threshold, load]);
  return state;
}

export async function fetchSelectedMedia(datasetId: string, layoutId: string, indices: number[]): Promise<string[]> {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/map/selection', { params: { path: { dataset_id: datasetId } }, body: { layout_id: layoutId, indices } })).media_ids;
}
