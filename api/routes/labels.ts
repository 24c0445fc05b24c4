import { Router } from '@koa/router';
import { requireDataset } from '../../services/datasetAccess';
import { startLabelPropagation } from '../../services/labels';
import type { TaskDeps } from '../../services/taskWorkflows';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { labelRoutes } from '../specs/labels';
import { toMediaSelection } from '../specs/selection';

/** Labels curators give (spec-silent beyond "label propagation" blocking snapshots; see docs/decisions.md). */
export function createLabelsRouter(deps: TaskDeps): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, labelRoutes.propagate, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'label');
    const taskId = await startLabelPropagation(deps, dataset, ctx.state.user, {
      label: body.label,
      selection: toMediaSelection(body.selection),
      minSimilarity: body.min_similarity,
      maxNeighbours: body.max_neighbours,
    });
    ctx.status = 202;
    ctx.body = { task_id: taskId };
  });

  return router;
}
