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
  points: (datasetId: string, threshold: number, count: number) => ['map', datasetId, 'points', threshold, count] as const,
};

export async function fetchMap(datasetId: string, threshold: number): Promise<DatasetMap> {
  return unwrap(await api.GET('/api/v1/dataset/{dataset_id}/map', { params: { path: { dataset_id: datasetId }, query: { threshold } } }));
}

async function fetchPage(datasetId: string, threshold: number, offset: number, limit: number): Promise<{ bytes: ArrayBuffer; count: number; layoutId: string | null }> {
  const result = await api.GET('/api/v1/dataset/{dataset_id}/map/points', {
    params: { path: { dataset_id: datasetId }, query: { threshold, offset, limit } },
    parseAs: 'arrayBuffer',
  });
  const bytes = unwrap(result) as unknown as ArrayBuffer;
  return { bytes, count: Number(result.response.headers.get('X-Map-Points')), layoutId: result.response.headers.get('X-Map-Layout-Id') };
}

/** Every point of the map, page after page, into one set of columns. */
export async function fetchPoints(datasetId: string, threshold: number, count: number, pageLimit: number): Promise<MapPoints> {
  const points: MapPoints = {
    layoutId: null,
    x: new Float32Array(count),
    y: new Float32Array(count),
    colours: { cluster: new Uint8Array(count), label: new Uint8Array(count), issue: new Uint8Array(count) },
  };
  for (let offset = 0; offset < count; offset += pageLimit) {
    const page = await fetchPage(datasetId, threshold, offset, Math.min(pageLimit, count - offset));
    const n = Math.min(page.count, count - offset);
    points.layoutId = page.layoutId;
    points.x.set(new Float32Array(page.bytes, 0, n), offset);
    points.y.set(new Float32Array(page.bytes, page.count * 4, n), offset);
    (['cluster', 'label', 'issue'] as const).forEach((by, column) => points.colours[by].set(new Uint8Array(page.bytes, page.count * (8 + column), n), offset));
  }
  return points;
}

export async function fetchSelectedMedia(datasetId: string, layoutId: string, indices: number[]): Promise<string[]> {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/map/selection', { params: { path: { dataset_id: datasetId } }, body: { layout_id: layoutId, indices } })).media_ids;
}
