import type { Db } from '../db/connection';
import type { Ending, TaskInput, TaskType } from '../lib/tasks';
import { endUnfinishedTask } from '../services/taskTypes';

/** What every task's workflow shares (workflows/runTask.ts): its end when it fails or is aborted. */
export function createTaskActivities(deps: { db: Db }) {
  const { db } = deps;
  return {
    /** The task FAILED or ABORTED and its datasets where its module (lib/tasks) says; safe to repeat. */
    async endTaskUnfinished<T extends TaskType>(request: Ending & { taskType: T; input: TaskInput<T> }): Promise<void> {
      await endUnfinishedTask(db, request.taskType, request.input, { aborted: request.aborted, message: request.message });
    },
  };
}
