import type { ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Task } from '../../api/client';
import { FINAL_TASK_STATUSES as FINAL, fetchFollowedTask, taskKeys, type FollowedTask } from './api';

/**
 * The newest task the action started, asked every 2 s until it ends; then the queries named in
 * `refresh` are refreshed once. Undefined until the task is listed.
 */
function useFollowedTask(followed: FollowedTask, refresh: string[]): Task | undefined {
  const queryClient = useQueryClient();
  const task = useQuery({
    queryKey: taskKeys.followed(followed),
    queryFn: async () => {
      const found = await fetchFollowedTask(followed);
      if (found && FINAL.has(found.status)) await Promise.all(refresh.map((key) => queryClient.invalidateQueries({ queryKey: [key] })));
      return found;
    },
    refetchInterval: (query) => (query.state.data && FINAL.has(query.state.data.status) ? false : 2000),
  });
  return task.data ?? undefined;
}

/**
 * A status message that lasts as long as its task: `running` while the task runs, then what came of it
 * (`completed` for a task that completed, its error otherwise), so no message outlives what it says.
 */
export function TaskNotice({ followed, running, completed, refresh = [] }: { followed: FollowedTask; running: ReactNode; completed(task: Task): ReactNode; refresh?: string[] }) {
  const task = useFollowedTask(followed, refresh);
  const ended = task && FINAL.has(task.status);
  return (
    <p role="status" data-testid="task-notice" data-task-status={task?.status ?? 'STARTING'}>
      {!ended && running}
      {task?.status === 'COMPLETED' && completed(task)}
      {ended && task.status !== 'COMPLETED' && `The ${task.task_type} task ended ${task.status}${task.error_message ? `: ${task.error_message}` : ''}.`}{' '}
      <Link to={task ? `/tasks?dataset_id=${task.dataset_id}` : '/tasks'}>Tasks</Link>
    </p>
  );
}
