import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type EntityType } from '../../api/client';

export const viewKeys = {
  all: ['views'] as const,
  list: (datasetId: string) => ['views', datasetId] as const,
  trend: (datasetId: string, viewId: string) => ['views', datasetId, viewId, 'trend'] as const,
};

export const viewQueries = {
  /** The dataset's saved views. */
  list: (datasetId: string) =>
    queryOptions({
      queryKey: viewKeys.list(datasetId),
      queryFn: async () => unwrap(await api.GET('/api/v1/dataset/{dataset_id}/views', { params: { path: { dataset_id: datasetId } } })).views,
    }),
  /** A view's matches per batch added since it was saved. */
  trend: (datasetId: string, viewId: string) =>
    queryOptions({
      queryKey: viewKeys.trend(datasetId, viewId),
      queryFn: async () => unwrap(await api.GET('/api/v1/dataset/{dataset_id}/views/{view_id}/trend', { params: { path: { dataset_id: datasetId, view_id: viewId } } })).points,
    }),
};

/** Saves Explore's filters (entity type, caption search, VQL) as a view. */
export async function saveView(datasetId: string, name: string, filters: { entityType: EntityType; caption?: string; vql?: string }) {
  return unwrap(
    await api.POST('/api/v1/dataset/{dataset_id}/views', {
      params: { path: { dataset_id: datasetId }, query: { entity_type: filters.entityType, caption: filters.caption, vql: filters.vql } },
      body: { name },
      bodySerializer: (body) => {
        const form = new FormData();
        form.append('name', body.name);
        return form;
      },
    }),
  );
}

export async function setViewAlerting(datasetId: string, viewId: string, enabled: boolean) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/views/{view_id}/alerting', { params: { path: { dataset_id: datasetId, view_id: viewId } }, body: { request: { enabled } } }));
}

export async function renameView(datasetId: string, viewId: string, name: string) {
  return unwrap(await api.PATCH('/api/v1/dataset/{dataset_id}/views/{view_id}', { params: { path: { dataset_id: datasetId, view_id: viewId } }, body: { name } }));
}

export async function deleteView(datasetId: string, viewId: string) {
  return unwrap(await api.DELETE('/api/v1/dataset/{dataset_id}/views/{view_id}', { params: { path: { dataset_id: datasetId, view_id: viewId } } }));
}
