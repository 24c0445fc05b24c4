import { Router } from '@koa/router';
import type { VectorStore } from '../../lib/vectors/vectorStore';
import { requireDataset } from '../../services/datasetAccess';
import { previewLabelPropagation, startLabelPropagation } from '../../services/labels';
import { declareLabelFields, labelFieldsOf, labelQualityOf } from '../../services/labelQuality';
import type { TaskDeps } from '../../services/taskWorkflows';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { labelRoutes } from '../specs/labels';
import { toMediaSelection } from '../specs/selection';

/** Labels curators give and their quality (spec-silent beyond "label propagation" blocking snapshots; see docs/decisions.md). */
export function createLabelsRouter(deps: TaskDeps & { vectors: VectorStore }): Router<ApiState> {
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

  mount(router, labelRoutes.previewPropagation, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'label');
    ctx.body = await previewLabelPropagation(deps, dataset, {
      label: body.label,
      selection: toMediaSelection(body.selection),
      minSimilarity: body.min_similarity,
      maxNeighbours: body.max_neighbours,
    });
  });

  mount(router, labelRoutes.declareFields, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'label');
    const taskId = await declareLabelFields(deps, dataset, ctx.state.user, { labelField: body.label_field, splitField: body.split_field });
    ctx.status = 202;
    ctx.body = { task_id: taskId };
  });

  mount(router, labelRoutes.fields, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id);
    ctx.body = await labelFieldsOf(deps, dataset);
  });

  mount(router, labelRoutes.report, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id);
    ctx.body = await labelQualityOf(deps, dataset);
  });

  return router;
}
