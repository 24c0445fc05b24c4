import type { Knex } from 'knex';
import type { Db } from '../connection';
import { ACTIVE_TASK_STATUSES, FINAL_TASK_STATUSES, LISTED_TASK_TYPES } from '../../lib/datasetStates';
import { Task, type TaskStatus, type TaskType } from '../models';
import { accessibleDatasetIds } from './datasets';

export interface TaskProgress {
  status?: TaskStatus;
  statusMessage?: string;
  progressPercentage?: number | null;
  phase?: string | null;
  errorMessage?: string | null;
}


/**
 * Writes a workflow's phase and progress into the tasks read model; final statuses also set end_time. A write that
 * does not end the task applies only while it has not ended: a late attempt of a timed-out activity (a frozen worker
 * thawed) must not bring a COMPLETED task back to RUNNING.
 */
export async function updateTaskProgress(db: Db, taskId: string, progress: TaskProgress): Promise<void> {
  const patch: Partial<Task> = { updated_at: new Date() };
  if (progress.status !== undefined) {
    patch.status = progress.status;
    patch.end_time = FINAL_TASK_STATUSES.includes(progress.status) ? new Date() : null;
  }
  if (progress.statusMessage !== undefined) patch.status_message = progress.statusMessage;
  if (progress.progressPercentage !== undefined) patch.progress_percentage = progress.progressPercentage;
  if (progress.phase !== undefined) patch.phase = progress.phase;
  if (progress.errorMessage !== undefined) patch.error_message = progress.errorMessage;
  const ends = progress.status !== undefined && FINAL_TASK_STATUSES.includes(progress.status);
  await Task.query(db)
    .patch(patch)
    .where({ task_id: taskId })
    .modify((query) => (ends ? query : query.whereIn('status', ACTIVE_TASK_STATUSES)));
}

/** A task that ended without completing: ABORTED by a user, or FAILED with why. */
export async function endTaskUnfinished(db: Db, taskId: string, end: { aborted: boolean; message: string }): Promise<void> {
  await updateTaskProgress(db, taskId, {
    status: end.aborted ? 'ABORTED' : 'FAILED',
    statusMessage: end.aborted ? 'Aborted' : 'Failed',
    errorMessage: end.message,
  });
}

export async function insertTask(
  db: Db,
  task: { taskId: string; datasetId: string; taskType: TaskType; createdBy: string; input: object; statusMessage: string },
): Promise<void> {
  await db('tasks').insert({
    task_id: task.taskId,
    dataset_id: task.datasetId,
    task_type: task.taskType,
    status: 'INITIALIZING',
    status_message: task.statusMessage,
    progress_percentage: 0,
    created_by: task.createdBy,
    input: JSON.stringify(task.input),
  });
}

/** A task's stored workflow input, if the task exists. */
export async function findTaskInput(db: Db, taskId: string): Promise<object | undefined> {
  return (await db('tasks').where({ task_id: taskId }).first('input'))?.input;
}

/** Moves a task from one of `from` to `to` in one guarded UPDATE; false when it was not in `from`. */
export async function transitionTaskStatus(
  db: Db,
  taskId: string,
  from: readonly TaskStatus[],
  to: TaskStatus,
  progress: Omit<TaskProgress, 'status'> = {},
): Promise<boolean> {
  const updated = await db('tasks')
    .where({ task_id: taskId })
    .whereIn('status', from)
    .update({
      status: to,
      end_time: FINAL_TASK_STATUSES.includes(to) ? db.fn.now() : null,
      start_time: to === 'INITIALIZING' ? db.fn.now() : db.ref('start_time'),
      updated_at: db.fn.now(),
      ...(progress.statusMessage !== undefined ? { status_message: progress.statusMessage } : {}),
      ...(progress.progressPercentage !== undefined ? { progress_percentage: progress.progressPercentage } : {}),
      ...(progress.errorMessage !== undefined ? { error_message: progress.errorMessage } : {}),
      ...(progress.phase !== undefined ? { phase: progress.phase } : {}),
    });
  return updated === 1;
}

export interface TaskRow {
  task_id: string;
  dataset_id: string;
  dataset_name: string;
  dataset_status_new: string;
  created_by_email: string;
  task_type: TaskType;
  status: TaskStatus;
  status_message: string;
  progress_percentage: number | null;
  error_message: string | null;
  start_time: Date;
  end_time: Date | null;
  updated_at: Date;
  phase: string | null;
  input: Record<string, unknown>;
  /** When the storage collector removed an export's archive (EXPORT_RETENTION_DAYS). */
  archive_released_at: Date | null;
}

export interface TaskFilters {
  datasetId?: string;
  datasetName?: string;
  taskType?: TaskType;
  taskStatus?: TaskStatus;
  createdBy?: string;
  startTimeFrom?: Date;
  startTimeTo?: Date;
}

const SORT_COLUMNS = {
  start_time: 't.start_time',
  status: 't.status',
  task_type: 't.task_type',
  dataset_name: 'd.display_name',
  dataset_id: 't.dataset_id',
  created_by: 'u.email',
} as const;
export type TaskSortKey = keyof typeof SORT_COLUMNS;
export const TASK_SORT_KEYS = Object.keys(SORT_COLUMNS) as TaskSortKey[];

/** Tasks of the datasets the user can access, with their dataset and creator joined. */
function visibleTasks(db: Db, userId: string) {
  return db('tasks as t')
    .join('datasets as d', 'd.id', 't.dataset_id')
    .join('users as u', 'u.id', 't.created_by')
    .whereIn('t.dataset_id', accessibleDatasetIds(db, userId));
}

function applyFilters(query: Knex.QueryBuilder, filters: TaskFilters): Knex.QueryBuilder {
  if (filters.datasetId) query.where('t.dataset_id', filters.datasetId);
  if (filters.datasetName) query.where('d.display_name', filters.datasetName);
  if (filters.taskType) query.where('t.task_type', filters.taskType);
  else query.whereIn('t.task_type', LISTED_TASK_TYPES);
  if (filters.taskStatus) query.where('t.status', filters.taskStatus);
  if (filters.createdBy) query.where('u.email', filters.createdBy.toLowerCase());
  if (filters.startTimeFrom) query.where('t.start_time', '>=', filters.startTimeFrom);
  // Postgres keeps microseconds, the API prints milliseconds: `to` takes in its whole millisecond, as the caller sees it.
  if (filters.startTimeTo) query.where('t.start_time', '<', new Date(filters.startTimeTo.getTime() + 1));
  return query;
}

const TASK_COLUMNS = [
  't.*',
  'd.display_name as dataset_name',
  'd.status_new as dataset_status_new',
  'u.email as created_by_email',
];

export async function listTasks(
  db: Db,
  userId: string,
  options: { filters: TaskFilters; sortBy: TaskSortKey; sortOrder: 'asc' | 'desc'; page: number; pageSize: number },
): Promise<{ rows: TaskRow[]; total: number }> {
  const base = applyFilters(visibleTasks(db, userId), options.filters);
  const [{ total }] = await base.clone().count({ total: '*' });
  const rows = await base
    .clone()
    .select(TASK_COLUMNS)
    .orderBy(SORT_COLUMNS[options.sortBy], options.sortOrder)
    .orderBy('t.task_id', options.sortOrder)
    .limit(options.pageSize)
    .offset((options.page - 1) * options.pageSize);
  return { rows, total: Number(total) };
}

export async function findTaskForUser(db: Db, taskId: string, userId: string): Promise<TaskRow | undefined> {
  return visibleTasks(db, userId).where('t.task_id', taskId).select(TASK_COLUMNS).first();
}

export async function taskFilterOptions(db: Db, userId: string, filters: Pick<TaskFilters, 'startTimeFrom' | 'startTimeTo'>) {
  const base = () => applyFilters(visibleTasks(db, userId), filters);
  const [names, ids, types, creators] = await Promise.all([
    base().distinct('d.display_name as value').orderBy('value'),
    base().distinct('t.dataset_id as value').orderBy('value'),
    base().distinct('t.task_type as value').orderBy('value'),
    base().distinct('u.email as value').orderBy('value'),
  ]);
  const values = (rows: Array<{ value: string }>) => rows.map((row) => row.value);
  return {
    dataset_names: values(names),
    dataset_ids: values(ids),
    task_types: values(types),
    created_by: values(creators),
  };
}

/** A running task's progress, mirrored on its dataset so clients polling either see it grow. */
export async function reportTaskProgress(
  db: Db,
  ref: { taskId: string; datasetId: string },
  progress: { percent: number; message: string; phase: string },
): Promise<void> {
  await db.transaction(async (trx) => {
    // Chunks run in parallel and report out of order: progress only ever grows.
    const updated = await trx('tasks')
      .where({ task_id: ref.taskId })
      .whereIn('status', ACTIVE_TASK_STATUSES)
      .where((query) => query.whereNull('progress_percentage').orWhere('progress_percentage', '<=', progress.percent))
      .update({ progress_percentage: progress.percent, status_message: progress.message, phase: progress.phase, updated_at: trx.fn.now() });
    if (updated === 1) await trx('datasets').where({ id: ref.datasetId }).update({ progress: progress.percent, updated_at: trx.fn.now() });
  });
}

export async function taskStartTime(db: Db, taskId: string): Promise<Date> {
  const row = await db('tasks').where({ task_id: taskId }).first('start_time');
  if (!row) throw new Error(`task ${taskId} does not exist`);
  return row.start_time;
}

/** The add_media or reindex task running on a dataset, if any (at most one runs at a time). */
export async function runningTaskOf(db: Db, datasetId: string, types: readonly TaskType[]) {
  return db('tasks')
    .where({ dataset_id: datasetId })
    .whereIn('task_type', types)
    .whereIn('status', ACTIVE_TASK_STATUSES)
    .first<Pick<TaskRow, 'task_id' | 'task_type' | 'status' | 'dataset_id' | 'error_message' | 'updated_at'> | undefined>(
      'task_id',
      'task_type',
      'status',
      'dataset_id',
      'error_message',
      'updated_at',
    );
}

/** Who started the task (a change it makes is theirs). */
export async function taskCreator(db: Db, taskId: string): Promise<string | null> {
  return (await db('tasks').where({ task_id: taskId }).first('created_by'))?.created_by ?? null;
}
