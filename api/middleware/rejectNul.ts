import type { Middleware } from 'koa';
import { containsNul, holdsNul } from '../../lib/nulText';
import { HttpError } from '../errors';

/** Percent-decoded path; a malformed escape is the router's to refuse, so it counts as NUL-free here. */
function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** One check for every route: NUL characters in the path, the query or a parsed body are a 422. */
export function rejectNul(): Middleware {
  return async (ctx, next) => {
    if (containsNul(decodedPath(ctx.path))) throw new HttpError(422, 'The path must not contain NUL characters');
    if (holdsNul(ctx.query)) throw new HttpError(422, 'Query parameters must not contain NUL characters');
    if (holdsNul(ctx.request.body)) throw new HttpError(422, 'The request body must not contain NUL characters');
    await next();
  };
}
