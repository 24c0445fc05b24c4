import { Router } from '@koa/router';
import { requireDataset } from '../../services/datasetAccess';
import { selectionPicksOf, startSelection } from '../../services/selection';
import type { TaskDeps } from '../../services/taskWorkflows';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { selectionRoutes, type SelectionRequestBody } from '../specs/selections';
import { API_PREFIX } from '../openapiDocument';

function weightsOf(body: SelectionRequestBody): Record<string, number> {
  return body.strategy !== undefined ? { [body.strategy]: 1 } : Object.fromEntries(Object.entries(body.weights!).filter(([, weight]) => weight > 0));
}

/** Selections for labelling (issue 52): a SELECTION task writes a tag; its picks say why each item was chosen. */
export function createSelectionsRouter(deps: TaskDeps): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, selectionRoutes.start, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'tag');
    const taskId = await startSelection(deps, dataset, ctx.state.user, {
      weights: weightsOf(body),
      size: body.n !== undefined ? { n: body.n } : { share: body.share! },
      filters: body.filter,
      tag: body.tag,
      seed: body.seed,
      balance: body.balance,
    });
    ctx.status = 202;
    ctx.set('Location', `${API_PREFIX}/tasks/${taskId}`);
    ctx.body = { task_id: taskId };
  });

  mount(router, selectionRoutes.picks, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    ctx.body = { picks: await selectionPicksOf(deps.db, dataset, params.tag_id) };
  });

  return router;
}
