import { Model } from 'objection';

export const TASK_TYPES = [
  'DATASET_CREATION',
  'MEDIA_ADDITION',
  'REINDEX',
  'ENRICHMENT',
  'CUSTOM_METADATA',
  'SNAPSHOT_RESTORE',
  'SNAPSHOT_CLONE',
] as const;
export type TaskType = (typeof TASK_TYPES)[number];
export const TASK_STATUSES = ['INITIALIZING', 'RUNNING', 'COMPLETED', 'FAILED', 'ABORTED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

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
