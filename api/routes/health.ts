import { Router } from '@koa/router';
import type { Connection } from '@temporalio/client';
import type { Db } from '../../db/connection';
import { checkPostgres } from '../../db/repositories/health';
import { checkTemporal } from '../../lib/temporal/health';
import { taskQueues } from '../../workflows/contracts';

export function createHealthRouter(deps: { db: Db; temporal: Connection; namespace: string; taskQueue: string }): Router {
  const router = new Router();

  router.get('/health', async (ctx) => {
    const [postgres, temporal] = await Promise.all([
      checkPostgres(deps.db),
      checkTemporal(deps.temporal, deps.namespace, Object.values(taskQueues(deps.taskQueue))),
    ]);
    const ok = postgres.ok && temporal.ok;
    ctx.status = ok ? 200 : 503;
    ctx.body = {
      status: ok ? 'ok' : 'unavailable',
      ...(ok ? {} : { detail: 'A required service is unavailable' }),
      postgres,
      temporal,
    };
  });

  return router;
}
