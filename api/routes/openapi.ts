import fs from 'node:fs';
import path from 'node:path';
import { Router } from '@koa/router';
import { projectRoot } from '../../lib/projectRoot';
import { mount } from '../routeSpec';
import type { RequestState } from '../state';
import { systemRoutes } from '../specs/system';

/** The OpenAPI document of this API: docs/openapi.json, generated from the route specs by `npm run openapi`. */
export function createOpenApiRouter(): Router<RequestState> {
  const router = new Router<RequestState>();
  const document = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'docs', 'openapi.json'), 'utf8'));
  mount(router, systemRoutes.openapi, (ctx) => {
    ctx.body = document;
  });
  return router;
}
