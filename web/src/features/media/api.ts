import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

export const mediaKeys = {
  all: ['media'] as const,
  detail: (datasetId: string, mediaId: string) => ['media', datasetId, mediaId] as const,
};

/** Every fact the API holds of one media item. */
export async function fetchMedia(datasetId: string, mediaId: string) {
  return unwrap(await api.GET('/api/v1/dataset/{dataset_id}/media/{media_id}', { params: { path: { dataset_id: datasetId, media_id: mediaId } } }));
}

export const mediaQueries = {
  detail: (datasetId: string, mediaId: string) => queryOptions({ queryKey: mediaKeys.detail(datasetId, mediaId), queryFn: () => fetchMedia(datasetId, mediaId) }),
};
