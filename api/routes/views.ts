import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import { requireDataset } from '../../services/datasetAccess';
import { deleteSavedView, listSavedViews, renameSavedView, saveView, savedViewTrend, setSavedViewAlerting } from '../../services/views';
import { HttpError } from '../errors';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { receiveFields } from '../uploads';
import { presentTrend, presentView } from '../presenters/view';
import { viewForm, viewRoutes } from '../specs/views';

/** Saved views: stored filter states, each monitored for the media batches added after it. */
export function createViewsRouter(deps: { db: Db }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, viewRoutes.create, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'manage_views');
    const form = viewForm.safeParse(await receiveFields(ctx));
    if (!form.success) throw new HttpError(422, form.error.issues[0].message);
    const view = await saveView(deps.db, dataset, ctx.state.user, {
      name: form.data.name,
      entityType: query.entity_type,
      threshold: query.threshold,
      caption: query.caption,
      vql: query.vql,
    });
    ctx.body = presentView(view);
  });

  mount(router, viewRoutes.list, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id);
    ctx.body = { views: (await listSavedViews(deps.db, dataset)).map(presentView) };
  });

  mount(router, viewRoutes.rename, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'manage_views');
    ctx.body = presentView(await renameSavedView(deps.db, dataset, params.view_id, body.name));
  });

  mount(router, viewRoutes.delete, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'manage_views');
    await deleteSavedView(deps.db, dataset, params.view_id);
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = 'null';
  });

  mount(router, viewRoutes.trend, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    ctx.body = presentTrend(await savedViewTrend(deps.db, dataset, params.view_id));
  });

  mount(router, viewRoutes.alerting, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'manage_views');
    await setSavedViewAlerting(deps.db, dataset, params.view_id, body.request.enabled);
    ctx.body = { alerting_enabled: body.request.enabled };
  });

  return router;
}
