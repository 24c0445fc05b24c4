import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './api/client';

/**
 * The link to a task's workflow in the Temporal Web UI, from the API's runtime configuration
 * (TEMPORAL_UI_URL, or the embedded UI on the host users reach the API at); null when none is known.
 */
export function useWorkflowUrl(): (taskId: string) => string | null {
  const config = useQuery({ queryKey: ['app-config'], queryFn: async () => unwrap(await api.GET('/api/v1/app_config')), staleTime: Infinity });
  return (taskId) => {
    const ui = config.data?.temporal_ui_url;
    if (!ui) return null;
    return `${ui}/namespaces/${encodeURIComponent(config.data!.temporal_namespace)}/workflows/${encodeURIComponent(taskId)}`;
  };
}
