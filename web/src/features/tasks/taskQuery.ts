// With its extension: the unit tests' typecheck (node16 resolution) reads this module too.
import type { paths } from '../../api/schema.js';

export type TasksQuery = NonNullable<paths['/api/v1/tasks']['get']['parameters']['query']>;

type SortBy = NonNullable<TasksQuery['sort_by']>;

/** A datetime-local value (the browser's zone) as the ISO instant the API wants. */
function toInstant(local: string | null): string | undefined {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The Tasks page's filters, sort and page as its URL query keeps them, read into the API's query (defaults filled in). */
export function taskQueryOf(params: URLSearchParams): TasksQuery {
  return {
    dataset_id: params.get('dataset_id') || undefined,
    dataset_name: params.get('dataset_name') || undefined,
    task_type: (params.get('task_type') || undefined) as TasksQuery['task_type'],
    task_status: (params.get('task_status') || undefined) as TasksQuery['task_status'],
    created_by: params.get('created_by') || undefined,
    start_time_from: toInstant(params.get('from')),
    start_time_to: toInstant(params.get('to')),
    sort_by: (params.get('sort_by') || 'start_time') as SortBy,
    sort_order: params.get('sort_order') === 'asc' ? 'asc' : 'desc',
    page: Math.max(1, Number(params.get('page')) || 1),
    page_size: Number(params.get('page_size')) || 20,
  };
}
