import type { Db } from '../db/connection';
import { updateTaskProgress, type TaskProgress } from '../db/queries/tasks';

/** Activities through which every task workflow reports to the `tasks` read model behind /api/v1/tasks. */
export function createTaskActivities(deps: { db: Db }) {
  return {
    async reportTaskProgress(taskId: string, progress: TaskProgress): Promise<void> {
      await updateTaskProgress(deps.db, taskId, progress);
    },
  };
}
