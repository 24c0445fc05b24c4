import fs from 'node:fs';
import path from 'node:path';
import { send } from '@koa/send';
import type { Middleware } from 'koa';

/** The API's own paths, in any letter case as the router matches them: never answered from the web app, so an unknown one stays a JSON 404. */
const API_PATH = /^\/api(\/|$)/i;

/** Vite names built assets by content hash, so they never change; index.html must be revalidated. */
function cacheControl(res: { setHeader(name: string, value: string): unknown }, filePath: string): void {
  const asset = filePath.includes(`${path.sep}assets${path.sep}`);
  res.setHeader('Cache-Control', asset ? 'public, max-age=31536000, immutable' : 'no-cache');
}

/**
 * The app's pages load scripts, styles and images from this host only (React sets styles through the
 * DOM, which a policy does not block), and no other site may frame them:
 * a framed page could be clicked through from a decoy (accepting every duplicate suggestion, say).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  // regl (the map's WebGL) compiles its draw calls into functions at run time; inline scripts stay refused.
  "script-src 'self' 'unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  // regl-scatterplot (the map) runs its point index in a worker made from a blob: URL.
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Serves the built web app (`web/dist`) at `/`: its files, and its index.html for any other page
 * path (the app routes in the browser). Does nothing while the app is not built, and never under /api.
 */
export function serveWebApp(root: string): Middleware {
  const index = path.join(root, 'index.html');
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || API_PATH.test(ctx.path)) return next();
    if (!(await fs.promises.stat(index).catch(() => undefined))?.isFile()) return next();
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('X-Frame-Options', 'DENY');
    try {
      await send(ctx, ctx.path, { root, index: 'index.html', setHeaders: cacheControl });
    } catch (error) {
      // A missing file with an extension is a 404; any other path is a page of the app.
      if ((error as { status?: number }).status !== 404 || path.extname(ctx.path) !== '') throw error;
      await send(ctx, 'index.html', { root, setHeaders: cacheControl });
    }
  };
}
