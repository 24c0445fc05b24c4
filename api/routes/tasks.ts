import { Router } from '@koa/router';
import { z } from 'zod';
import { TASK_STATUSES, TASK_TYPES } from '../../db/models';
import { taskFilterOptions, TASK_SORT_KEYS } from '../../db/repositories/tasks';
import { abortTask, listTasksRepaired, retryTask } from '../../services/tasks';
import type { TaskDeps } from '../../services/taskWorkflows';
import { validate } from '../middleware/validate';
import { presentTask } from '../presenters/task';

const datetime = z.iso.datetime({ offset: true, local: true, message: 'expected an ISO 8601 datetime' }).transform((value) => new Date(value));
const timeRange = {
  start_time_from: datetime.optional(),
  start_time_to: datetime.optional(),
};

const listQuery = z.object({
  dataset_id: z.uuid('dataset_id must be a UUID').optional(),
  dataset_name: z.string().min(1).optional(),
  task_type: z.enum(TASK_TYPES, { message: `task_type must be one of ${TASK_TYPES.join(', ')}` }).optional(),
  task_status: z.enum(TASK_STATUSES, { message: `task_status must be one of ${TASK_STATUSES.join(', ')}` }).optional(),
  created_by: z.string().min(1).optional(),
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
const filtersQuery = z.object(timeRange);
const taskParams = z.object({ task_id: z.uuid('task_id must be a UUID') });

export function createTasksRouter(deps: TaskDeps): Router {
  const router = new Router({ prefix: '/tasks' });

  router.get('/', validate({ query: listQuery }), async (ctx) => {
    const { query } = ctx.state.input as { query: z.output<typeof listQuery> };
    const { rows, total } = await listTasksRepaired(deps, ctx.state.user, {
      filters: {
        datasetId: query.dataset_id,
        datasetName: query.dataset_name,
        taskType: query.task_type,
        taskStatus: query.task_status,
        createdBy: query.created_by,
        startTimeFrom: query.start_time_from,
        startTimeTo: query.start_time_to,
      },
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
      page: query.page,
      pageSize: query.page_size,
    });
    ctx.body = { tasks: rows.map(presentTask), total, page: query.page, page_size: query.page_size };
  });

  router.get('/filters', validate({ query: filtersQuery }), async (ctx) => {
    const { query } = ctx.state.input as { query: z.output<typeof filtersQuery> };
    ctx.body = await taskFilterOptions(deps.db, ctx.state.user.id, {
      startTimeFrom: query.start_time_from,
      startTimeTo: query.start_time_to,
    });
  });

  router.post('/:task_id/abort', validate({ params: taskParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof taskParams> };
    ctx.body = presentTask(await abortTask(deps, params.task_id, ctx.state.user));
  });

  router.post('/:task_id/retry', validate({ params: taskParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof taskParams> };
    ctx.body = presentTask(await retryTask(deps, params.task_id, ctx.state.user));
  });

  return router;
}
