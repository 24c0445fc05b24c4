import type { Middleware } from 'koa';
import { HttpError } from '../errors';
import type { RouteSpec } from '../routeSpec';

const READ_METHODS = new Set(['GET', 'HEAD']);

/** Paths (below /api/v1) of the GET routes the contract makes change state; Koa's router answers HEAD with them too. */
function stateChangingReads(routes: readonly RouteSpec[]): RegExp[] {
  return routes
    .filter((route) => route.method === 'get' && route.changesState)
    .map((route) => new RegExp(`^/api/v1${route.path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`));
}

/** Whether a browser says the request comes from another site: Sec-Fetch-Site, or else Origin against ours. */
function isCrossSite(site: string, origin: string, publicOrigin: string): boolean {
  if (site) return site !== 'same-origin' && site !== 'none';
  return origin !== '' && origin !== publicOrigin;
}

/**
 * Cookies and an API without authentication answer any page the browser shows, so every request
 * that changes state (any method but GET, HEAD and OPTIONS, and the GETs the contract makes create
 * things) must come from this service's own pages or from no browser at all. The browser tells in
 * Sec-Fetch-Site, or else in Origin, which is compared with PUBLIC_URL's origin, never with the
 * request's own Host. A request with neither header is not a browser's cross-site request (curl, an SDK).
 */
export function refuseCrossSiteRequests(publicUrl: string, routes: readonly RouteSpec[]): Middleware {
  const publicOrigin = new URL(publicUrl).origin;
  const reads = stateChangingReads(routes);
  return async (ctx, next) => {
    const changesState = READ_METHODS.has(ctx.method) ? reads.some((path) => path.test(ctx.path)) : ctx.method !== 'OPTIONS';
    if (changesState && isCrossSite(ctx.get('sec-fetch-site'), ctx.get('origin'), publicOrigin)) {
      throw new HttpError(403, "Cross-site request refused: a request that changes data must come from this service's own pages");
    }
    return next();
  };
}

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
