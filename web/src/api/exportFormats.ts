import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from './client';

export type ExportFormatInfo = Schemas['ExportFormat'];

/** The export formats the API takes (GET /export-formats), in its order; they change only with a deployment. */
export const exportFormatsQuery = queryOptions({
  queryKey: ['exportFormats'],
  queryFn: async () => unwrap(await api.GET('/api/v1/export-formats')),
  staleTime: Infinity,
});

export const useExportFormats = () => useQuery(exportFormatsQuery);
