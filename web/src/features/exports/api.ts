import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import type { paths } from '../../api/schema';
import { fetchTasks, taskKeys } from '../tasks/api';

export type ExportFormatInfo = Schemas['ExportFormat'];
export type ExportFormat = NonNullable<paths['/api/v1/dataset/{dataset_id}/export_context_async']['get']['parameters']['query']>['export_format'];
export type ExportStatus = paths['/api/v1/dataset/{dataset_id}/export_status']['get']['responses'][200]['content']['application/json'];

export const exportKeys = {
  formats: ['exportFormats'] as const,
  /** Under the tasks' key: starting any task refreshes the list. */
  list: (datasetId: string) => [...taskKeys.all, 'exports', datasetId] as const,
  status: (taskId: string) => ['export', taskId] as const,
};

export const exportQueries = {
  /** The export formats the API takes (GET /export-formats), in its order; they change only with a deployment. */
  formats: () => queryOptions({ queryKey: exportKeys.formats, queryFn: async () => unwrap(await api.GET('/api/v1/export-formats')), staleTime: Infinity }),
  /** The dataset's ten newest EXPORT tasks. */
  list: (datasetId: string) =>
    queryOptions({ queryKey: exportKeys.list(datasetId), queryFn: () => fetchTasks({ dataset_id: datasetId, task_type: 'EXPORT', page_size: 10, sort_by: 'start_time', sort_order: 'desc' }) }),
  /** An export's status and, once it is done, a freshly signed download link. */
  status: (datasetId: string, taskId: string) =>
    queryOptions({
      queryKey: exportKeys.status(taskId),
      queryFn: async () => unwrap(await api.GET('/api/v1/dataset/{dataset_id}/export_status', { params: { path: { dataset_id: datasetId }, query: { export_task_id: taskId } } })),
    }),
};

export const useExportFormats = () => useQuery(exportQueries.formats());

/** An export's status, asked every 1.5 s until it has ended. */
export function useExportStatus(datasetId: string, taskId: string) {
  return useQuery({
    ...exportQueries.status(datasetId, taskId),
    refetchInterval: (query) => (query.state.data?.status === 'COMPLETED' || query.state.data?.status === 'FAILED' ? false : 1500),
    // Each answer signs a fresh link; an old page gets a new one when it is looked at again.
    staleTime: 60_000,
  });
}

/** Starts an EXPORT task of the whole dataset. */
export async function exportDataset(datasetId: string, fileName: string, format: ExportFormat, includeImages: boolean) {
  return unwrap(
    await api.GET('/api/v1/dataset/{dataset_id}/export_context_async', {
      params: { path: { dataset_id: datasetId }, query: { file_name: fileName, export_format: format, include_images: includeImages ? 'true' : 'false' } },
    }),
  );
}
