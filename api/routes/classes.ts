import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import { requireDataset } from '../../services/datasetAccess';
import { acceptSuggestions, classesOf, DEFAULT_MIN_SCORE, labelHistoryOf, setLabel, undoLabels } from '../../services/groundTruth';
import { isoTime } from '../presenters/time';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { classRoutes } from '../specs/classes';
import { toMediaSelection } from '../specs/selection';

/** The user's own labels: classes with counts, fixes (set, accept suggestions), undo and each item's history. */
export function createClassesRouter(deps: { db: Db }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, classRoutes.list, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id);
    ctx.body = await classesOf(deps.db, dataset);
  });

  mount(router, classRoutes.set, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'label');
    ctx.body = await setLabel(deps.db, dataset, ctx.state.user, toMediaSelection(body.selection), body.label);
  });

  mount(router, classRoutes.acceptSuggestions, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'label');
    ctx.body = await acceptSuggestions(deps.db, dataset, ctx.state.user, { mediaIds: body.media_ids, minScore: body.min_score ?? (body.media_ids ? 0 : DEFAULT_MIN_SCORE) });
  });

  mount(router, classRoutes.undo, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id, 'label');
    ctx.body = await undoLabels(deps.db, dataset, ctx.state.user);
  });

  mount(router, classRoutes.history, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const changes = await labelHistoryOf(deps.db, dataset, params.media_id);
    ctx.body = { changes: changes.map((change) => ({ ...change, created_at: isoTime(change.created_at) })) };
  });

  return router;
}
