import type { Db } from '../connection';
import { Task, type TaskStatus } from '../models';

export interface TaskProgress {
  status?: TaskStatus;
  statusMessage?: string;
  progressPercentage?: number | null;
  phase?: string | null;
  errorMessage?: string | null;
}

const FINAL_STATUSES: TaskStatus[] = ['COMPLETED', 'FAILED', 'ABORTED'];

/** Writes a workflow's phase and progress into the tasks read model; final statuses also set end_time. */
export async function updateTaskProgress(db: Db, taskId: string, progress: TaskProgress): Promise<void> {
  const patch: Partial<Task> = { updated_at: new Date() };
  if (progress.status !== undefined) {
    patch.status = progress.status;
    patch.end_time = FINAL_STATUSES.includes(progress.status) ? new Date() : null;
  }
  if (progress.statusMessage !== undefined) patch.status_message = progress.statusMessage;
  if (progress.progressPercentage !== undefined) patch.progress_percentage = progress.progressPercentage;
  if (progress.phase !== undefined) patch.phase = progress.phase;
  if (progress.errorMessage !== undefined) patch.error_message = progress.errorMessage;
  await Task.query(db).patch(patch).where({ task_id: taskId });
}
