import type { Task, TaskType } from './client';

/** docs/states.md "Tasks": which types may be aborted and retried at all. */
const ABORTABLE: ReadonlySet<TaskType> = new Set(['DATASET_CREATION']);
const RETRYABLE: ReadonlySet<TaskType> = new Set(['DATASET_CREATION']);

/** Why Abort is not offered for this task, or undefined when the API may allow it (it still refuses during the commit phase). */
export function abortRefusal(task: Task): string | undefined {
  if (!ABORTABLE.has(task.task_type)) return `A ${task.task_type} task cannot be aborted`;
  if (task.status !== 'INITIALIZING' && task.status !== 'RUNNING') return `Only a running task can be aborted (this one is ${task.status})`;
  return undefined;
}

/** Why Retry is not offered for this task, or undefined when the API allows it. */
export function retryRefusal(task: Task): string | undefined {
  if (!RETRYABLE.has(task.task_type)) return `A ${task.task_type} task cannot be retried`;
  if (task.status !== 'FAILED' && task.status !== 'ABORTED') return `Only a failed or aborted task can be retried (this one is ${task.status})`;
  return undefined;
}
