import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import type { Client } from '@temporalio/client';
import type { Logger } from '../../lib/logger';
import { deleteDataset, listDatasets, renameDataset } from '../../services/datasets';
import { requireDataset } from '../../services/datasetAccess';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { presentDataset } from '../presenters/dataset';
import { datasetRoutes } from '../specs/datasets';

export function createDatasetsRouter(deps: { db: Db; temporal: Client; taskQueue: string; logger: Logger }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, datasetRoutes.get, async (ctx) => {
    ctx.body = presentDataset(await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id));
  });

  mount(router, datasetRoutes.rename, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'rename');
    ctx.body = presentDataset(await renameDataset(deps.db, dataset, body.name));
  });

  mount(router, datasetRoutes.delete, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id, 'delete');
    await deleteDataset(deps, dataset);
    ctx.status = 200;
    ctx.body = ''; // an empty body, as the snapshot delete answers (null would turn the status into 204)
  });

  mount(router, datasetRoutes.list, async (ctx) => {
    ctx.body = (await listDatasets(deps.db, ctx.state.user)).map(presentDataset);
  });

  return router;
}
