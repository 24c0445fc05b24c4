import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../lib/logger';

const acceptableRequestId = /^[A-Za-z0-9._-]{1,128}$/;

/** Gives each request an id (taken from X-Request-Id when sane), a child logger, and one access-log line. */
export function requestContext(logger: Logger): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = acceptableRequestId.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          user_id: ctx.state.user?.id,
        },
        'request',
      );
    }
  };
}
