import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

export const clusterKeys = {
  members: (datasetId: string, clusterId: string, page: number) => ['cluster', datasetId, clusterId, page] as const,
};

export const clusterQueries = {
  /** A page of a cluster's members (Explore shows its first previews only). */
  members: (datasetId: string, clusterId: string, page: number, pageSize: number) =>
    queryOptions({
      queryKey: clusterKeys.members(datasetId, clusterId, page),
      queryFn: async () =>
        unwrap(
          await api.GET('/api/v1/dataset/{dataset_id}/clusters/{cluster_id}/media', {
            params: { path: { dataset_id: datasetId, cluster_id: clusterId }, query: { page_number: page, page_size: pageSize } },
          }),
        ),
    }),
};
