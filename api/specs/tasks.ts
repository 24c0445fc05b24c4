import { z } from 'zod';
import { TASK_STATUSES, TASK_TYPES } from '../../lib/datasetStates';
import { TASK_SORT_KEYS } from '../../services/tasks';
import { defineRoute } from '../routeSpec';
import { taskFilterOptionsSchema, taskSchema } from '../presenters/task';

const datetime = z.iso
  .datetime({ offset: true, local: true, message: 'expected an ISO 8601 datetime' })
  .meta({ format: 'date-time' })
  .transform((value) => new Date(value));
const timeRange = {
  start_time_from: datetime.optional(),
  start_time_to: datetime.optional(),
};

const listQuery = z.object({
  dataset_id: z.uuid('dataset_id must be a UUID').optional(),
  dataset_name: z.string().min(1).optional(),
  task_type: z.enum(TASK_TYPES, { message: `task_type must be one of ${TASK_TYPES.join(', ')}` }).optional(),
  task_status: z.enum(TASK_STATUSES, { message: `task_status must be one of ${TASK_STATUSES.join(', ')}` }).optional(),
  created_by: z.string().min(1).optional().meta({ description: "The creator's email" }),
  ...timeRange,
  sort_by: z.enum(TASK_SORT_KEYS, { message: `sort_by must be one of ${TASK_SORT_KEYS.join(', ')}` }).default('start_time'),
  sort_order: z.enum(['asc', 'desc'], { message: 'sort_order must be asc or desc' }).default('desc'),
  page: z.coerce.number({ message: 'page must be an integer' }).int('page must be an integer').min(1, 'page starts at 1').default(1),
  page_size: z.coerce
    .number({ message: 'page_size must be an integer' })
    .int('page_size must be an integer')
    .min(5, 'page_size must be between 5 and 50')
    .max(50, 'page_size must be between 5 and 50')
    .default(20),
});
const taskParams = z.object({ task_id: z.uuid('task_id must be a UUID') });

export const taskRoutes = {
  list: defineRoute({
    method: 'get',
    path: '/tasks',
    tag: 'tasks',
    summary: "Tasks of the caller's datasets",
    description: 'The task types the spec lists; export tasks (followed through export_status) only with task_type=EXPORT.',
    auth: 'user',
    request: { query: listQuery },
    responses: {
      200: {
        description: 'Page of tasks',
        schema: z.object({ tasks: z.array(taskSchema), total: z.number().int(), page: z.number().int(), page_size: z.number().int() }),
      },
    },
    errors: [[403, 'dataset_id names a dataset of the workspace the caller has no access to'], [404, 'dataset_id names no dataset the caller can see']],
  }),
  filters: defineRoute({
    method: 'get',
    path: '/tasks/filters',
    tag: 'tasks',
    summary: 'Values to filter tasks by',
    description: 'From the tasks GET /tasks lists without a task_type (so no EXPORT).',
    auth: 'user',
    request: { query: z.object(timeRange) },
    responses: { 200: { description: 'Filter options', schema: taskFilterOptionsSchema } },
  }),
  get: defineRoute({
    method: 'get',
    path: '/tasks/:task_id',
    tag: 'tasks',
    summary: 'One task, as GET /tasks lists it',
    description:
      'Any task of a dataset the caller may read (an EXPORT too); repaired from its workflow first, as the list is. ' +
      'The Location header of a 202 that started a task (reindex, snapshot restore and clone) names this path.',
    auth: 'user',
    request: { params: taskParams },
    responses: { 200: { description: 'The task', schema: taskSchema } },
    errors: [[404, 'No task with this id on a dataset the caller may read']],
  }),
  abort: defineRoute({
    method: 'post',
    path: '/tasks/:task_id/abort',
    tag: 'tasks',
    summary: 'Abort a running task (of a type that can be aborted, before its commit phase)',
    auth: 'user',
    request: { params: taskParams },
    responses: { 200: { description: 'Aborted', schema: taskSchema } },
    errors: [403, 404, [409, 'Not abortable now: finished, committing, or of a type that cannot be aborted']],
  }),
  retry: defineRoute({
    method: 'post',
    path: '/tasks/:task_id/retry',
    tag: 'tasks',
    summary: 'Retry a FAILED or ABORTED task (of a type that can be retried) with its original input',
    auth: 'user',
    request: { params: taskParams },
    responses: { 200: { description: 'Restarted', schema: taskSchema } },
    errors: [[400, 'Not FAILED or ABORTED, or of a type that cannot be retried'], 403, 404],
  }),
};
