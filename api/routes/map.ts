import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import { requireDataset } from '../../services/datasetAccess';
import { datasetMap, datasetMapMatches, datasetMapPage, mediaAtMapPoints } from '../../services/map';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { MAP_PAGE_LIMIT, mapRoutes } from '../specs/map';

const legend = <T extends object>(entries: T[]) => entries.map((entry, i) => ({ index: i + 1, ...entry }));

/** The dataset map: its summary and legends, binary pages of points, and the media behind a selection of points. */
export function createMapRouter(deps: { db: Db }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, mapRoutes.map, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const map = await datasetMap(deps.db, dataset, query.threshold);
    ctx.body = {
      layout_id: map.layoutId,
      count: map.count,
      unplaced: map.unplaced,
      bounds: map.bounds,
      threshold: map.threshold,
      page_limit: MAP_PAGE_LIMIT,
      layout_status: map.layout.status,
      layout_task_id: map.layout.taskId,
      layout_error: map.layout.error,
      legends: { cluster: legend(map.legends.clusters), label: legend(map.legends.labels), issue: legend(map.legends.issues), class: legend(map.legends.classes) },
    };
  });

  mount(router, mapRoutes.points, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const page = await datasetMapPage(deps.db, dataset, query);
    // Kept by the browser and asked again with If-None-Match: an unchanged page is a 304 that reads no point.
    ctx.set('ETag', `"${page.etag}"`);
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.set('X-Map-Total', String(page.total));
    if (page.layoutId) ctx.set('X-Map-Layout-Id', page.layoutId);
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    const { count, bytes } = await page.read();
    ctx.set('X-Map-Points', String(count));
    ctx.type = 'application/octet-stream';
    ctx.body = bytes;
  });

  mount(router, mapRoutes.matches, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const matches = await datasetMapMatches(deps.db, dataset, query.vql);
    ctx.set('X-Map-Total', String(matches.total));
    ctx.set('X-Map-Matches', String(matches.matched));
    if (matches.layoutId) ctx.set('X-Map-Layout-Id', matches.layoutId);
    ctx.type = 'application/octet-stream';
    ctx.body = matches.bitmap;
  });

  mount(router, mapRoutes.selection, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    ctx.body = { media_ids: await mediaAtMapPoints(deps.db, dataset, body.layout_id, body.indices) };
  });

  return router;
}
