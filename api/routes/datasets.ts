import { Router } from '@koa/router';
import { z } from 'zod';
import type { Db } from '../../db/connection';
import { listDatasetsForUser } from '../../db/repositories/datasets';
import { requireDataset } from '../../services/datasetAccess';
import { validate } from '../middleware/validate';
import { presentDataset } from '../presenters/dataset';

export const datasetIdParams = z.object({ dataset_id: z.uuid('dataset_id must be a UUID') });

export function createDatasetsRouter(deps: { db: Db }): Router {
  const router = new Router();

  router.get('/dataset/:dataset_id', validate({ params: datasetIdParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof datasetIdParams> };
    ctx.body = presentDataset(await requireDataset(deps.db, params.dataset_id, ctx.state.user.id));
  });

  router.get('/datasets', async (ctx) => {
    const rows = await listDatasetsForUser(deps.db, ctx.state.user.id);
    ctx.body = rows.map(presentDataset);
  });

  return router;
}
