import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Box, type EntityType } from '../../api/client';
import type { paths } from '../../api/schema';
import { postForm } from '../../api/upload';

export type ExploreQuery = NonNullable<paths['/api/v1/explore/{dataset_id}']['get']['parameters']['query']>;

export const exploreKeys = {
  all: ['explore'] as const,
  page: (datasetId: string, query: ExploreQuery) => ['explore', datasetId, query] as const,
};

async function fetchExplore(datasetId: string, query: ExploreQuery) {
  return unwrap(await api.GET('/api/v1/explore/{dataset_id}', { params: { path: { dataset_id: datasetId }, query } }));
}
/** As openapi-fetch reads the answer (schema Cluster). */
export type Cluster = Awaited<ReturnType<typeof fetchExplore>>['clusters'][number];
export type Preview = Cluster['previews'][number];

export const exploreQueries = {
  /** A page of clusters with their previews, filtered, searched or ranked as `query` says. */
  page: (datasetId: string, query: ExploreQuery) => queryOptions({ queryKey: exploreKeys.page(datasetId, query), queryFn: () => fetchExplore(datasetId, query) }),
};

/** An image the API serves (a signed media link), as a blob the page can send back as a search. */
export async function fetchImage(uri: string): Promise<Blob> {
  const answer = await fetch(uri, { credentials: 'same-origin' });
  if (!answer.ok) throw new Error(`The image could not be read (${answer.status})`);
  return answer.blob();
}

type SimilarityAnswer = paths['/api/v1/dataset/{dataset_id}/search-image-similarity']['post']['responses'][200]['content']['application/json'];

/**
 * Stages an image of the user's as a visual-search anchor (anchor_type UPLOAD) for `entityType`;
 * with `box`, only that part of the image is encoded (an object to find).
 */
export function searchByImage(datasetId: string, image: Blob, fileName: string, entityType: EntityType, box?: Box | null): Promise<SimilarityAnswer> {
  const form = new FormData();
  form.append('file', image, fileName);
  const url: keyof paths = '/api/v1/dataset/{dataset_id}/search-image-similarity';
  const query = new URLSearchParams({ entity_type: entityType });
  if (box) query.set('bounding_box', JSON.stringify(box));
  return postForm(`${url.replace('{dataset_id}', encodeURIComponent(datasetId))}?${query}`, form);
}
