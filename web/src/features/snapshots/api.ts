import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

export const snapshotKeys = {
  all: ['snapshots'] as const,
  list: (datasetId: string) => ['snapshots', datasetId] as const,
};

export const snapshotQueries = {
  /** The dataset's snapshots, newest first. */
  list: (datasetId: string) =>
    queryOptions({
      queryKey: snapshotKeys.list(datasetId),
      queryFn: async () => unwrap(await api.GET('/api/v1/dataset/{dataset_id}/snapshot', { params: { path: { dataset_id: datasetId } } })),
    }),
};

export async function createSnapshot(datasetId: string, name: string, description: string | undefined) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/snapshot', { params: { path: { dataset_id: datasetId } }, body: { name, ...(description ? { description } : {}) } }));
}

export async function restoreSnapshot(datasetId: string, snapshotId: string) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/snapshot/{snapshot_id}/restore', { params: { path: { dataset_id: datasetId, snapshot_id: snapshotId } } }));
}

export async function cloneSnapshot(datasetId: string, snapshotId: string) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/snapshot/{snapshot_id}/clone', { params: { path: { dataset_id: datasetId, snapshot_id: snapshotId } } }));
}
