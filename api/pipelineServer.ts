import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import Koa, { type Middleware } from 'koa';
import { Router } from '@koa/router';
import { z } from 'zod';
import type { PipelineTriggerAccess } from '../lib/config';
import { addMediaFromPipeline } from '../services/pipeline';
import type { AppDeps } from './app';
import { errorHandler } from './middleware/errorHandler';
import { refuseBrowserPages } from './middleware/sameOrigin';
import { requestContext } from './middleware/requestContext';
import { defineRoute, mount } from './routeSpec';
import { booleanParam } from './specs/common';
import type { RequestState } from './state';

const addMediaRoute = defineRoute({
  method: 'get',
  path: '/add_media',
  tag: 'pipeline',
  summary: 'On-premises pipeline: add the media under a local path',
  auth: 'none',
  request: {
    query: z.object({
      dataset_id: z.uuid('dataset_id must be a UUID'),
      path: z.string({ message: 'path is required' }).min(1, 'path is required'),
      auto_reindex: booleanParam('auto_reindex').default(false),
    }),
  },
  responses: { 202: { description: 'The MEDIA_ADDITION task started' } },
  errors: [400, 401, 403, 404, 409],
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
 * The on-premises pipeline trigger on its own port (PIPELINE_HOST:PIPELINE_PORT), served by the API:
 * GET /api/v1/process/add_media?dataset_id=&path=[&auto_reindex=] starts a MEDIA_ADDITION batch from
 * a local path that both the API (which checks it) and the worker (which reads it) can see. Bind it
 * to a private interface.
 */
export async function startPipelineServer(deps: AppDeps, access: Extract<PipelineTriggerAccess, { serve: true }>) {
  const app = new Koa();
  const router = new Router<RequestState>({ prefix: '/api/v1/process' });
  mount(router, addMediaRoute, async (ctx) => {
    const { query } = ctx.state.input;
    const taskId = await addMediaFromPipeline(
      { ...deps, taskQueue: deps.config.temporal.taskQueue },
      { datasetId: query.dataset_id, path: query.path, autoReindex: query.auto_reindex },
    );
    ctx.status = 202;
    ctx.body = { task_id: taskId, dataset_id: query.dataset_id, path: query.path };
  });
  app.use(requestContext(deps.logger));
  app.use(errorHandler());
  // Its GET starts a batch: a page of another site must not be able to make a browser start one.
  app.use(refuseBrowserPages());
  if (access.token) app.use(requireBearerToken(access.token));
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
