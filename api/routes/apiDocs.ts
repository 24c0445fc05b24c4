import path from 'node:path';
import { Router } from '@koa/router';
import { send } from '@koa/send';
import type { RequestState } from '../state';

/** Swagger UI's prebuilt files, served from node_modules: the page works offline (no CDN). */
const SWAGGER_UI_ROOT = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);

/**
 * The page and its own script load from this host only. Swagger UI sets inline styles and shows
 * the document's images as data: URLs; the "try it out" requests go to this API (connect-src 'self').
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference · Media datasets</title>
  <link rel="icon" href="/favicon.svg">
  <link rel="stylesheet" href="/api/v1/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/v1/docs/swagger-ui-bundle.js"></script>
  <script src="/api/v1/docs/init.js"></script>
</body>
</html>
`;

// A file of its own, not an inline script, so the policy needs no 'unsafe-inline' for scripts.
// validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io.
const INIT_SCRIPT = `fetch('/api/v1/openapi.json', { credentials: 'same-origin' })
  .then((response) => response.json())
  .then((spec) => {
    // "Try it out" goes to the server that served this page, whatever host the document names.
    spec.servers = [{ url: window.location.origin, description: 'This server' }];
    window.ui = SwaggerUIBundle({ spec, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null, withCredentials: true });
  });
`;

/** The API reference in the browser at /api/v1/docs: Swagger UI rendering /api/v1/openapi.json. */
export function createApiDocsRouter(): Router<RequestState> {
  const router = new Router<RequestState>({ prefix: '/api/v1' });
  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'html';
    ctx.body = PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'application/javascript';
    ctx.body = INIT_SCRIPT;
  });
  router.get('/docs/:file', async (ctx, next) => {
    if (!SWAGGER_UI_FILES.has(ctx.params.file)) return next();
    ctx.set('Cache-Control', 'public, max-age=86400');
    await send(ctx, ctx.params.file, { root: SWAGGER_UI_ROOT });
  });
  return router;
}
