import type { TaskRow } from '../../db/repositories/tasks';
import { isoTime } from './time';


export function presentTask(row: TaskRow) {
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
