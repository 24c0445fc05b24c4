import type { Middleware } from 'koa';
import { HttpError } from '../errors';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const REFUSED = "Cross-site request refused: a request that changes data must come from this service's own pages";

/** Whether a browser says the request comes from another site: Sec-Fetch-Site, or else Origin against ours. */
function isCrossSite(site: string, origin: string, publicOrigin: string): boolean {
  if (site) return site !== 'same-origin' && site !== 'none';
  return origin !== '' && origin !== publicOrigin;
}

/**
 * Cookies and an API without authentication answer any page the browser shows, so every request
 * that changes state must come from this service's own pages or from no browser at all. The browser
 * tells in Sec-Fetch-Site, or else in Origin, which is compared with PUBLIC_URL's origin, never with
 * the request's own Host. A request with neither header is not a browser's cross-site request (curl, an SDK).
 *
 * Any method but GET, HEAD and OPTIONS is refused here. Which GETs change state is known only once
 * the router has matched the route (it matches paths case-insensitively), so this records the
 * answer and `refuseCrossSiteRead`, put first in those routes' chains by `mount`, refuses them.
 */
export function refuseCrossSiteRequests(publicUrl: string): Middleware {
  const publicOrigin = new URL(publicUrl).origin;
  return async (ctx, next) => {
    const crossSite = isCrossSite(ctx.get('sec-fetch-site'), ctx.get('origin'), publicOrigin);
    if (crossSite && !READS.has(ctx.method)) throw new HttpError(403, REFUSED);
    ctx.state.crossSite = crossSite;
    return next();
  };
}

/** The guard of a GET route the contract makes create or start something (its spec says `changesState`). */
export const refuseCrossSiteRead: Middleware = async (ctx, next) => {
  if (ctx.state.crossSite) throw new HttpError(403, REFUSED);
  return next();
};

/**
 * For servers no page of ours calls (the pipeline trigger): any request a browser makes from a page
 * (Sec-Fetch-Site other than `none`, or an Origin) is refused; tools send neither.
 */
export function refuseBrowserPages(): Middleware {
  return async (ctx, next) => {
    const site = ctx.get('sec-fetch-site');
    if ((site && site !== 'none') || ctx.get('origin')) {
      throw new HttpError(403, 'Refused: the pipeline trigger is for tools on this machine, not for web pages');
    }
    return next();
  };
}
