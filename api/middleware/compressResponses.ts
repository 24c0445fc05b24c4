import compress from 'koa-compress';
import type { Middleware } from 'koa';
import { GZIP_LEVEL } from '../../services/exploreAnswers';

/**
 * Responses gzip-compressed for clients that accept it (browsers, the Python client): JSON listings, the web app's
 * scripts and the OpenAPI document are several times smaller so. koa-compress leaves alone bodies under 1 KiB, types
 * that do not compress (images, videos, export archives, the map's binary points) and bodies that carry their own
 * Content-Encoding (Explore's answers, remembered compressed); the event stream turns it off for itself.
 */
export function compressResponses(): Middleware {
  const compressing = compress({ threshold: 1024, gzip: { level: GZIP_LEVEL }, deflate: false, br: false });
  return (ctx, next) =>
    compressing(ctx, async () => {
      await next();
      // koa-compress measures an object body (JSON.stringify) before it serializes it again: serialized once here.
      if (isObjectBody(ctx.body)) ctx.body = JSON.stringify(ctx.body);
    });
}

/** A body Koa would send as JSON: not text, bytes or a stream (the test koa-compress itself makes). */
function isObjectBody(body: unknown): boolean {
  return body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { pipe?: unknown }).pipe !== 'function';
}
