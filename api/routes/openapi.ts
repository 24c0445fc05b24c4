import fs from 'node:fs';
import path from 'node:path';
import { Router } from '@koa/router';
import { projectRoot } from '../../lib/projectRoot';

/** The OpenAPI document of this API (docs/openapi.json; a test keeps it in step with the routes). */
export function createOpenApiRouter(): Router {
  const router = new Router();
  const document = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'docs', 'openapi.json'), 'utf8'));
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  return router;
}
