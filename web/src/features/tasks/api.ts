import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Task } from '../../api/client';
import type { TasksQuery } from './taskQuery';

/** Statuses a task does not leave. */
export const FINAL_TASK_STATUSES: ReadonlySet<Task['status']> = new Set(['COMPLETED', 'FAILED', 'ABORTED']);

/** What a notice follows: the newest task of `taskType` (of `datasetId` when it is known) started since `since` (ms). */
export interface FollowedTask {
  taskType: Task['task_type'];
  datasetId?: string;
  since: number;
}

/** Query keys of tasks: every list of tasks sits under `all`, so one invalidation refreshes them all. */
export const taskKeys = {
  all: ['tasks'] as const,
  list: (query: TasksQuery) => ['tasks', 'list', query] as const,
  filters: (from: string | undefined, to: string | undefined) => ['tasks', 'filters', from, to] as const,
  followed: (followed: FollowedTask) => ['followedTask', followed] as const,
  appConfig: ['app-config'] as const,
};

export async function fetchTasks(query: TasksQuery) {
  return unwrap(await api.GET('/api/v1/tasks', { params: { query } }));
}

/** Tasks started this long before the click still count as the one it started (the API's clock may run behind the browser's). */
const CLOCK_SLACK_MS = 60_000;

/** The newest task `followed` names, or null while none is listed. */
export async function fetchFollowedTask(followed: FollowedTask): Promise<Task | null> {
  const since = new Date(followed.since - CLOCK_SLACK_MS).toISOString();
  const page = await fetchTasks({ task_type: followed.taskType, dataset_id: followed.datasetId, start_time_from: since, sort_order: 'desc', page_size: 5 });
  return page.tasks[0] ?? null;
}

export const taskQueries = {
  list: (query: TasksQuery) => queryOptions({ queryKey: taskKeys.list(query), queryFn: () => fetchTasks(query) }),
  /** The values each filter of the Tasks page can take among the tasks started in the period. */
  filters: (from: string | undefined, to: string | undefined) =>
    queryOptions({
      queryKey: taskKeys.filters(from, to),
      queryFn: async () => unwrap(await api.GET('/api/v1/tasks/filters', { params: { query: { start_time_from: from, start_time_to: to } } })),
    }),
};

export async function abortTask(taskId: string) {
  return unwrap(await api.POST('/api/v1/tasks/{task_id}/abort', { params: { path: { task_id: taskId } } }));
}

export async function retryTask(taskId: string) {
  return unwrap(await api.POST('/api/v1/tasks/{task_id}/retry', { params: { path: { task_id: taskId } } }));
}

/**
 * The link to a task's workflow in the Temporal Web UI, from the API's runtime configuration
 * (TEMPORAL_UI_URL, or the embedded UI on the host users reach the API at); null when none is known.
 */
export function useWorkflowUrl(): (taskId: string) => string | null {
  const config = useQuery({ queryKey: taskKeys.appConfig, queryFn: async () => unwrap(await api.GET('/api/v1/app_config')), staleTime: Infinity });
  return (taskId) => {
    const ui = config.data?.temporal_ui_url;
    if (!ui) return null;
    return `${ui}/namespaces/${encodeURIComponent(config.data!.temporal_namespace)}/workflows/${encodeURIComponent(taskId)}`;
  };
}
