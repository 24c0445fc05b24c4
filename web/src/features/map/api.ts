import { api, unwrap, type Schemas } from '../../api/client';

export type DatasetMap = Schemas['DatasetMap'];
export type ColourBy = 'cluster' | 'label' | 'issue';

/** One binary page of points, columns of n (see GET /dataset/{id}/map/points). */
export interface MapPoints {
  layoutId: string | null;
  x: Float32Array;
  y: Float32Array;
  colours: Record<ColourBy, Uint8Array>;
}

export const mapKeys = {
  all: (datasetId: string) => ['map', datasetId] as const,
  summary: (datasetId: string, threshold: number) => ['map', datasetId, 'summary', threshold] as const,
  points: (datasetId: string, threshold: number) => ['map', datasetId, 'points', threshold] as const,
};

export async function fetchMap(datasetId: string, threshold: number): Promise<DatasetMap> {
  return unwrap(await api.GET('/api/v1/dataset/{dataset_id}/map', { params: { path: { dataset_id: datasetId }, query: { threshold } } }));
}

async function fetchPage(datasetId: string, threshold: number, offset: number) {
  const result = await api.GET('/api/v1/dataset/{dataset_id}/map/points', {
    params: { path: { dataset_id: datasetId }, query: { threshold, offset } },
    parseAs: 'arrayBuffer',
  });
  const bytes = unwrap(result) as unknown as ArrayBuffer;
  const header = (name: string) => result.response.headers.get(name);
  return { bytes, count: Number(header('X-Map-Points')), total: Number(header('X-Map-Total')), layoutId: header('X-Map-Layout-Id') };
}

/** Every point of the map, page after page (the API's largest), into one set of columns; needs nothing from GET …/map, so both load at once. */
export async function fetchPoints(datasetId: string, threshold: number): Promise<MapPoints> {
  let page = await fetchPage(datasetId, threshold, 0);
  const total = page.total;
  const points: MapPoints = {
    layoutId: page.layoutId,
    x: new Float32Array(total),
    y: new Float32Array(total),
    colours: { cluster: new Uint8Array(total), label: new Uint8Array(total), issue: new Uint8Array(total) },
  };
  for (let offset = 0; ; ) {
    const n = Math.min(page.count, total - offset);
    points.x.set(new Float32Array(page.bytes, 0, n), offset);
    points.y.set(new Float32Array(page.bytes, page.count * 4, n), offset);
    (['cluster', 'label', 'issue'] as const).forEach((by, column) => points.colours[by].set(new Uint8Array(page.bytes, page.count * (8 + column), n), offset));
    offset += n;
    if (offset >= total || n === 0) return points;
    page = await fetchPage(datasetId, threshold, offset);
  }
}

export async function fetchSelectedMedia(datasetId: string, layoutId: string, indices: number[]): Promise<string[]> {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/map/selection', { params: { path: { dataset_id: datasetId } }, body: { layout_id: layoutId, indices } })).media_ids;
}
