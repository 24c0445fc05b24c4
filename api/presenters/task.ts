import { z } from 'zod';
import { abortRefusal, retryRefusal, TASK_STATUSES, TASK_TYPES } from '../../lib/datasetStates';
import type { TaskRow } from '../../db/repositories/tasks';
import { isoTime, timestamp } from './time';

export const taskSchema = z
  .object({
    task_id: z.uuid(),
    dataset_id: z.uuid(),
    dataset_name: z.string(),
    dataset_status: z.string().meta({ description: 'The dataset status with underscores: READ_ONLY, PARTIAL_INDEX, ...' }),
    created_by: z.string().meta({ description: "The creator's email" }),
    task_type: z.enum(TASK_TYPES),
    status: z.enum(TASK_STATUSES),
    status_message: z.string(),
    progress_percentage: z.number().int().nullable(),
    error_message: z.string().nullable(),
    start_time: timestamp,
    end_time: timestamp.nullable(),
    can_abort: z.boolean().meta({ description: 'Whether POST /tasks/{task_id}/abort may stop it now (its type, status and phase; the caller also needs manage_tasks)' }),
    abort_refusal: z.string().nullable().meta({ description: 'Why it cannot be aborted now; null when it can' }),
    can_retry: z.boolean().meta({ description: 'Whether POST /tasks/{task_id}/retry may start it again now (its type and status; the caller also needs manage_tasks)' }),
    retry_refusal: z.string().nullable().meta({ description: 'Why it cannot be retried now; null when it can' }),
  })
  .meta({ id: 'Task' });

export function presentTask(row: TaskRow): z.output<typeof taskSchema> {
  const abortReason = abortRefusal(row) ?? null;
  const retryReason = retryRefusal(row) ?? null;
  return {
    task_id: row.task_id,
    dataset_id: row.dataset_id,
    dataset_name: row.dataset_name,
    // Task records spell dataset statuses with underscores (READ_ONLY, PARTIAL_INDEX).
    dataset_status: row.dataset_status_new.replace(/ /g, '_'),
    created_by: row.created_by_email,
    task_type: row.task_type,
    status: row.status,
    status_message: row.status_message,
    progress_percentage: row.progress_percentage,
    error_message: row.error_message,
    start_time: isoTime(row.start_time),
    end_time: isoTime(row.end_time),
    can_abort: abortReason === null,
    abort_refusal: abortReason,
    can_retry: retryReason === null,
    retry_refusal: retryReason,
  };
}

export const taskFilterOptionsSchema = z.object({
  dataset_names: z.array(z.string()),
  dataset_ids: z.array(z.uuid()),
  task_types: z.array(z.enum(TASK_TYPES)),
  created_by: z.array(z.string()),
});
