import { Router } from '@koa/router';
import { z } from 'zod';
import type { Db } from '../../db/connection';
import { createView, deleteView, findView, listViews, setAlerting, trendPoints, type ViewRow } from '../../db/repositories/views';
import { parseVql, VqlError } from '../../lib/vql/parseVql';
import { requireDataset } from '../../services/datasetAccess';
import { HttpError } from '../errors';
import { validate } from '../middleware/validate';
import { receiveFields } from '../uploads';
import { datasetIdParams } from './datasets';
import { isoTime } from '../presenters/time';

const viewParams = datasetIdParams.extend({ view_id: z.uuid('view_id must be a UUID') });
const createQuery = z.object({
  entity_type: z.enum(['IMAGES', 'OBJECTS', 'VIDEOS'], { message: 'entity_type must be IMAGES, OBJECTS or VIDEOS' }).default('IMAGES'),
  threshold: z.coerce.number({ message: 'threshold must be a number 0-1' }).min(0, 'threshold must be a number 0-1').max(1, 'threshold must be a number 0-1').default(0),
  caption: z.string().trim().min(1).optional(),
  vql: z.string().optional(),
});
const alertingBody = z.object({ request: z.object({ enabled: z.boolean({ message: 'request.enabled must be a boolean' }) }, { message: 'body must be {"request": {"enabled": true|false}}' }) });

function presentView(view: ViewRow) {
  const name = [view.creator_first_name, view.creator_last_name].filter(Boolean).join(' ') || view.creator_email;
  return {
    id: view.id,
    dataset_id: view.dataset_id,
    name: view.name,
    created_at: isoTime(view.created_at),
    created_by: { user_id: view.created_by, email: view.creator_email, name },
    filters: view.filters,
    stats: view.stats,
    monitoring_enabled: view.monitoring_enabled,
    monitoring_started_at: isoTime(view.monitoring_started_at),
    alerting_enabled: view.alerting_enabled,
    total_results: view.total_results,
    last_results: isoTime(view.last_results),
  };
}

/** Saved views: stored filter states, each monitored for the media batches added after it. */
export function createViewsRouter(deps: { db: Db }): Router {
  const router = new Router({ prefix: '/dataset/:dataset_id/views' });

  const monitoredView = async (datasetId: string, viewId: string) => {
    const view = await findView(deps.db, datasetId, viewId);
    if (!view) throw new HttpError(404, 'View not found');
    if (!view.monitoring_enabled) throw new HttpError(400, 'Monitoring is not enabled for this view');
    return view;
  };

  router.post('/', validate({ params: datasetIdParams, query: createQuery }), async (ctx) => {
    const { params, query } = ctx.state.input as { params: z.output<typeof datasetIdParams>; query: z.output<typeof createQuery> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'manage_views');
    const fields = await receiveFields(ctx);
    const name = fields.name?.trim();
    if (!name) throw new HttpError(422, 'name is required (form field)');
    if (name.length > 255) throw new HttpError(422, 'name is at most 255 characters');
    let vql: unknown[] = [];
    try {
      if (query.vql) {
        parseVql(query.vql);
        vql = JSON.parse(query.vql);
      }
    } catch (error) {
      if (error instanceof VqlError) throw new HttpError(422, error.message);
      throw error;
    }
    const view = await createView(deps.db, {
      datasetId: params.dataset_id,
      name,
      userId: ctx.state.user.id,
      filters: { entity_type: query.entity_type, threshold: String(query.threshold), caption: query.caption ?? null, vql },
    });
    if (!view) throw new HttpError(409, `A view named "${name}" already exists in this dataset`);
    ctx.body = presentView(view);
  });

  router.get('/', validate({ params: datasetIdParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof datasetIdParams> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    ctx.body = { views: (await listViews(deps.db, params.dataset_id)).map(presentView) };
  });

  router.delete('/:view_id', validate({ params: viewParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof viewParams> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'manage_views');
    if (!(await deleteView(deps.db, params.dataset_id, params.view_id))) throw new HttpError(404, 'View not found');
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = 'null';
  });

  router.get('/:view_id/trend', validate({ params: viewParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof viewParams> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const view = await monitoredView(params.dataset_id, params.view_id);
    const points = await trendPoints(deps.db, view.id);
    ctx.body = {
      points: points.map((point) => ({ ...point, timestamp: isoTime(point.timestamp) })),
      total_results: view.total_results,
      last_results: isoTime(view.last_results),
    };
  });

  router.post('/:view_id/alerting', validate({ params: viewParams, body: alertingBody }), async (ctx) => {
    const { params, body } = ctx.state.input as { params: z.output<typeof viewParams>; body: z.output<typeof alertingBody> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'manage_views');
    const view = await monitoredView(params.dataset_id, params.view_id);
    await setAlerting(deps.db, view.id, body.request.enabled);
    ctx.body = { alerting_enabled: body.request.enabled };
  });

  return router;
}
