import { queryOptions } from '@tanstack/react-query';
import { api, type Health } from '../../api/client';

export const healthQueries = {
  /** Postgres, Temporal and worker health; a 503 still carries the report. */
  report: () =>
    queryOptions({
      queryKey: ['health'] as const,
      queryFn: async (): Promise<Health> => {
        const { data, error, response } = await api.GET('/api/v1/health');
        const report = data ?? (error as Health | undefined);
        if (!report || typeof report !== 'object' || !('status' in report)) throw new Error(`The API answered ${response.status}`);
        return report;
      },
    }),
};
