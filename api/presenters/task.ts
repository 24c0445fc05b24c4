import { z } from 'zod';
import { TASK_STATUSES, TASK_TYPES } from '../../lib/datasetStates';
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
  })
  .meta({ id: 'Task' });

export function presentTask(row: TaskRow): z.output<typeof taskSchema> {
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
  };
}

export const taskFilterOptionsSchema = z.object({
  dataset_names: z.array(z.string()),
  dataset_ids: z.array(z.uuid()),
  task_types: z.array(z.enum(TASK_TYPES)),
  created_by: z.array(z.string()),
});
