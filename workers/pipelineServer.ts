import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import Koa, { type Middleware } from 'koa';
import { Router } from '@koa/router';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { errorHandler } from '../api/middleware/errorHandler';
import { requestContext } from '../api/middleware/requestContext';
import { validate } from '../api/middleware/validate';
import { datasetNotFound } from '../lib/errors';
import type { Db } from '../db/connection';
import { datasetOwner, getDatasetAccess } from '../db/repositories/datasets';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { ObjectStore } from '../lib/storage/objectStore';
import { checkAddMediaPreconditions, checkLocalSource, requireAddMediaEnabled, startMediaAddition } from '../services/mediaAddition';

const addMediaQuery = z.object({
  dataset_id: z.uuid('dataset_id must be a UUID'),
  path: z.string({ message: 'path is required' }).min(1, 'path is required'),
  auto_reindex: z.enum(['true', 'false']).transform((value) => value === 'true').default(false),
});

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Authorization: Bearer <token>, compared in constant time. */
function requireBearerToken(token: string): Middleware {
  const expected = digest(token);
  return async (ctx, next) => {
    const given = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    if (!given || !timingSafeEqual(digest(given), expected)) {
      ctx.set('WWW-Authenticate', 'Bearer');
      ctx.status = 401;
      ctx.body = { detail: 'The pipeline trigger needs Authorization: Bearer <PIPELINE_TOKEN>' };
      return;
    }
    await next();
  };
}

/**
 * The on-premises pipeline trigger, served by the worker because the path must be readable where
 * the media are processed: GET /api/v1/process/add_media?dataset_id=&path=[&auto_reindex=] starts a
 * MEDIA_ADDITION batch from a local folder, manifest, archive or file, on behalf of the dataset's
 * owner, with the same preconditions as add_media. Bind it to a private interface (PIPELINE_HOST).
 */
export async function startPipelineServer(
  deps: { config: Config; db: Db; store: ObjectStore; temporal: Client; logger: Logger },
  trigger: { token?: string },
) {
  const app = new Koa();
  const router = new Router({ prefix: '/api/v1/process' });
  router.get('/add_media', validate({ query: addMediaQuery }), async (ctx) => {
    const { query } = ctx.state.input as { query: z.output<typeof addMediaQuery> };
    requireAddMediaEnabled(deps.config);
    const owner = await datasetOwner(deps.db, query.dataset_id);
    if (!owner) throw datasetNotFound();
    const access = await getDatasetAccess(deps.db, query.dataset_id, owner.id);
    if (access.kind !== 'granted') throw datasetNotFound();
    await checkAddMediaPreconditions({ ...deps, taskQueue: deps.config.temporal.taskQueue }, access.dataset);
    const source = await checkLocalSource(deps.config, query.path);
    const taskId = await startMediaAddition({ ...deps, taskQueue: deps.config.temporal.taskQueue }, access.dataset, owner, {
      source,
      autoReindex: query.auto_reindex,
      hints: {},
    });
    ctx.status = 202;
    ctx.body = { task_id: taskId, dataset_id: query.dataset_id, path: query.path };
  });
  app.use(requestContext(deps.logger));
  app.use(errorHandler());
  if (trigger.token) app.use(requireBearerToken(trigger.token));
  app.use(router.routes()).use(router.allowedMethods());

  const server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.pipeline.port, deps.config.pipeline.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : deps.config.pipeline.port;
  const url = `http://${deps.config.pipeline.host}:${port}`;
  deps.logger.info({ url }, 'pipeline trigger listening');
  return {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
