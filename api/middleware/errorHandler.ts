import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import { NotFoundError, UniqueViolationError } from '../../db/errors';
import { knownError, type KnownError } from '../errors';

function toErrorResponse(error: unknown): KnownError | undefined {
  const known = knownError(error);
  if (known) return known;
  if (error instanceof NotFoundError) return { status: 404, detail: 'Not found' };
  if (error instanceof UniqueViolationError) return { status: 409, detail: `Already exists: ${error.columns.join(', ')}` };
  // koa and its body parser throw http-errors with `expose` for client errors (e.g. 413 too large).
  const maybeHttp = error as { status?: number; expose?: boolean; message?: string };
  if (maybeHttp?.expose && typeof maybeHttp.status === 'number' && maybeHttp.status < 500) {
    return { status: maybeHttp.status, detail: maybeHttp.message ?? 'Bad request' };
  }
  return undefined;
}

const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * A request refused before its body was read (unknown dataset on an upload, say) would otherwise
 * reset the connection under a client still sending, which then never sees our answer. Read and
 * discard the rest, up to a limit past which closing is cheaper.
 */
async function drainUnreadBody(req: IncomingMessage): Promise<void> {
  if (req.complete || req.readableEnded) return;
  await new Promise<void>((resolve) => {
    let seen = 0;
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT_BYTES) {
        req.removeAllListeners('data');
        resolve();
      }
    });
    req.once('end', resolve);
    req.once('error', () => resolve());
    req.once('close', resolve);
    req.resume();
  });
}

/** Every error leaves as `{"detail": "..."}`; unexpected ones are logged and answered with a bare 500. */
export function errorHandler(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      // Unmatched routes (404) and wrong methods (405) arrive here with no body.
      if (ctx.status >= 400 && (ctx.body === undefined || ctx.body === null)) {
        ctx.status = ctx.status; // keep koa from resetting it when the body is set
        ctx.body = { detail: ctx.message };
      }
    } catch (error) {
      // Nothing to drain from a client that left, nor from one we answer and then hang up on (a stalled upload).
      const closing = ctx.req.destroyed || ctx.response.get('Connection') === 'close';
      if (!closing) await drainUnreadBody(ctx.req);
      const known = toErrorResponse(error);
      if (known) {
        ctx.status = known.status;
        ctx.body = { detail: known.detail };
        if (known.retryAfterSeconds !== undefined) {
          ctx.set('Retry-After', String(known.retryAfterSeconds));
          ctx.state.log?.warn({ err: error }, 'dependency unavailable');
        }
        return;
      }
      ctx.state.log?.error({ err: error }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { detail: 'Internal server error' };
    }
  };
}
