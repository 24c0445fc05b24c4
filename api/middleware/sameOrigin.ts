import type { Context } from 'koa';
import { HttpError } from '../errors';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cookies ride along on requests other sites make, so a write authenticated by the SESSION cookie
 * must come from this service's own pages: a browser says so in Sec-Fetch-Site, or else in Origin
 * (compared with PUBLIC_URL, or the scheme and host the request came to). A request with neither
 * header is not a browser's cross-site request (curl, an SDK) and passes.
 */
export function refuseCrossSiteWrite(ctx: Context, publicUrl: string | undefined): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const site = ctx.get('sec-fetch-site');
  const origin = ctx.get('origin');
  const sameSite = site ? site === 'same-origin' || site === 'none' : !origin || origin === (publicUrl ? new URL(publicUrl).origin : ctx.origin);
  if (!sameSite) throw new HttpError(403, 'Cross-site request refused: a write with the session cookie must come from this service\'s own pages');
}
