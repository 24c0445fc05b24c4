import { Model } from 'objection';
import type { TaskStatus, TaskType } from '../../lib/datasetStates';

export { TASK_STATUSES, TASK_TYPES, type TaskStatus, type TaskType } from '../../lib/datasetStates';

export class Task extends Model {
  static tableName = 'tasks';
  static idColumn = 'task_id';
  task_id!: string;
  dataset_id!: string;
  task_type!: TaskType;
  status!: TaskStatus;
  status_message!: string;
  progress_percentage!: number | null;
  error_message!: string | null;
  created_by!: string;
  input!: Record<string, unknown>;
  phase!: string | null;
  start_time!: Date;
  end_time!: Date | null;
  updated_at!: Date;
}
