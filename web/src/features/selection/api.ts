import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import type { paths } from '../../api/schema';
import { fetchTasks } from '../tasks/api';
import { mediaIdLists, type Selection } from './selection';

type MediaSelection = Schemas['MediaSelection'];

export const tagKeys = {
  all: ['tags'] as const,
  list: (datasetId: string) => ['tags', datasetId] as const,
};

export const selectionKeys = {
  count: (datasetId: string, body: MediaSelection | undefined) => ['selection-count', datasetId, body] as const,
  labelTask: (taskId: string | undefined) => ['labelTask', taskId] as const,
};

export const tagQueries = {
  /** The dataset's tags. */
  list: (datasetId: string) =>
    queryOptions({
      queryKey: tagKeys.list(datasetId),
      queryFn: async () => unwrap(await api.GET('/api/v1/dataset/{dataset_id}/tags', { params: { path: { dataset_id: datasetId } } })),
    }),
};

export const selectionQueries = {
  /** How many items, by kind, one request's selection holds (a filter also matches video frames). */
  count: (datasetId: string, body: MediaSelection | undefined) =>
    queryOptions({
      queryKey: selectionKeys.count(datasetId, body),
      queryFn: async () => unwrap(await api.POST('/api/v1/dataset/{dataset_id}/selection/count', { params: { path: { dataset_id: datasetId } }, body: body! })),
    }),
};

/** The LABEL_PROPAGATION task `taskId`, null until it is listed. */
export async function fetchLabelTask(datasetId: string, taskId: string | undefined) {
  const page = await fetchTasks({ dataset_id: datasetId, task_type: 'LABEL_PROPAGATION', page_size: 10 });
  return page.tasks.find((task) => task.task_id === taskId) ?? null;
}

export async function createTag(datasetId: string, name: string) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/tags', { params: { path: { dataset_id: datasetId } }, body: { name } }));
}

/** Tags (or untags) what one request's selection holds; the answer counts the media changed. */
export async function changeTagOf(datasetId: string, tagId: string, action: 'tag' | 'untag', body: MediaSelection): Promise<number> {
  const params = { path: { dataset_id: datasetId, tag_id: tagId } };
  return action === 'tag'
    ? unwrap(await api.POST('/api/v1/dataset/{dataset_id}/tags/{tag_id}/media', { params, body })).tagged
    : unwrap(await api.DELETE('/api/v1/dataset/{dataset_id}/tags/{tag_id}/media', { params, body })).untagged;
}

/** An EXPORT task (JSON) of the picked images and whole clusters. */
export async function exportSelection(datasetId: string, selection: Selection) {
  return unwrap(
    await api.POST('/api/v1/dataset/{dataset_id}/export_entities_async', {
      params: { path: { dataset_id: datasetId }, query: { export_format: 'json' } },
      body: {
        media_selection: [
          ...mediaIdLists(selection).map((ids) => ({ type: 'media' as const, payload: { media_ids: ids } })),
          ...selection.clusters.map((cluster) => ({
            type: 'cluster' as const,
            payload: { cluster_id: cluster.id, cluster_filters: { entity_type: 'IMAGES' as const }, exclude_media_ids: [] },
          })),
        ],
      },
    }),
  );
}

type PropagationRequest = paths['/api/v1/dataset/{dataset_id}/labels/propagate']['post']['requestBody']['content']['application/json'];

/** Labels the selection and its neighbours (a LABEL_PROPAGATION task). */
export async function propagateLabel(datasetId: string, body: PropagationRequest) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/labels/propagate', { params: { path: { dataset_id: datasetId } }, body }));
}

/** A dry run of propagateLabel: how many neighbours it would label, at this similarity and at others. */
export async function previewPropagation(datasetId: string, body: PropagationRequest) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/labels/propagate/preview', { params: { path: { dataset_id: datasetId } }, body }));
}

type SelectionRequest = paths['/api/v1/dataset/{dataset_id}/selections']['post']['requestBody']['content']['application/json'];

/** The strategies a selection for labelling takes (POST …/selections). */
export const SELECTION_STRATEGIES = ['typicality', 'representative', 'diversity', 'uniqueness', 'coverage'] as const;
export type SelectionStrategy = (typeof SELECTION_STRATEGIES)[number];

/** Starts a SELECTION task: N of what the filter matches, chosen for labelling, as a new tag; its task id. */
export async function startSelection(datasetId: string, body: SelectionRequest): Promise<string> {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/selections', { params: { path: { dataset_id: datasetId } }, body })).task_id;
}
