import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import { requireDataset } from '../../services/datasetAccess';
import { listDatasetMedia } from '../../services/media';
import { presentMediaItem } from '../presenters/mediaItem';
import { mount } from '../routeSpec';
import { datasetMediaRoutes } from '../specs/datasetMedia';
import type { ApiState } from '../state';

/** The paged listing of a dataset's media (one item's facts are an Explore route). */
export function createDatasetMediaRouter(deps: { db: Db }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, datasetMediaRoutes.list, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const { rows, total } = await listDatasetMedia(deps.db, dataset, { page: query.page, pageSize: query.page_size });
    ctx.body = { media: rows.map(presentMediaItem), total, page: query.page, page_size: query.page_size };
  });

  return router;
}
