import type { Middleware } from 'koa';
import { z } from 'zod';
import { HttpError } from '../errors';
import { holdsNul } from '../../lib/nulText';
import type { InputOf, RequestSchemas } from '../state';

function describeIssue(part: string, issue: z.core.$ZodIssue): string {
  const where = [part, ...issue.path.map(String)].join('.');
  return `${where}: ${issue.message}`;
}

/**
 * Parses params, query and body with zod; the first problem (or a NUL character in the result) becomes a 422 naming the field.
 * The handlers after it find the parsed parts, typed by their schemas, in `ctx.state.input` (api/routeSpec.ts mounts the pair).
 */
export function validate<S extends RequestSchemas>(schemas: S, invalidStatus: 400 | 422 = 422): Middleware<{ input: InputOf<S> }> {
  return async (ctx, next) => {
    const sources = { params: (ctx as { params?: unknown }).params ?? {}, query: ctx.query, body: ctx.request.body ?? {} };
    const input: Record<string, unknown> = {};
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = schemas[part];
      if (!schema) continue;
      const result = schema.safeParse(sources[part]);
      if (!result.success) throw new HttpError(invalidStatus, describeIssue(part, result.error.issues[0]));
      // JSON inside a query parameter (labels=["..."]) is decoded only here, after the raw NUL check.
      if (holdsNul(result.data)) throw new HttpError(invalidStatus, `${part}: text must not contain NUL characters`);
      input[part] = result.data;
    }
    // Each declared part was parsed by its own schema just above.
    ctx.state.input = input as InputOf<S>;
    await next();
  };
}
