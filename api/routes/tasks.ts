import { Router } from '@koa/router';
import { abortTask, findTaskRepaired, listTaskFilterOptions, listTasksRepaired, retryTask } from '../../services/tasks';
import type { TaskDeps } from '../../services/taskWorkflows';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { presentTask } from '../presenters/task';
import { taskRoutes } from '../specs/tasks';

export function createTasksRouter(deps: TaskDeps): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, taskRoutes.list, async (ctx) => {
    const { query } = ctx.state.input;
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

  mount(router, taskRoutes.filters, async (ctx) => {
    const { query } = ctx.state.input;
    ctx.body = await listTaskFilterOptions(deps, ctx.state.user, { startTimeFrom: query.start_time_from, startTimeTo: query.start_time_to });
  });

  // After /tasks/filters, which a task id would otherwise shadow.
  mount(router, taskRoutes.get, async (ctx) => {
    ctx.body = presentTask(await findTaskRepaired(deps, ctx.state.input.params.task_id, ctx.state.user));
  });

  mount(router, taskRoutes.abort, async (ctx) => {
    ctx.body = presentTask(await abortTask(deps, ctx.state.input.params.task_id, ctx.state.user));
  });

  mount(router, taskRoutes.retry, async (ctx) => {
    ctx.body = presentTask(await retryTask(deps, ctx.state.input.params.task_id, ctx.state.user));
  });

  return router;
}
