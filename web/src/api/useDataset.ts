import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client';
import { TRANSIENT_DATASET_STATUSES } from './status';

/** The dataset record, asked again every 2 s while a task changes its status. */
export function useDataset(datasetId: string) {
  return useQuery({
    queryKey: ['dataset', datasetId],
    queryFn: async () => unwrap(await api.GET('/api/v1/dataset/{dataset_id}', { params: { path: { dataset_id: datasetId } } })),
    refetchInterval: (query) => (query.state.data && TRANSIENT_DATASET_STATUSES.has(query.state.data.status_new) ? 2000 : false),
  });
}
