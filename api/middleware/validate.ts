import type { Middleware } from 'koa';
import { z } from 'zod';
import { HttpError } from '../errors';
import { holdsNul } from '../../lib/nulText';

type Schemas = { params?: z.ZodType; query?: z.ZodType; body?: z.ZodType };

function describeIssue(part: string, issue: z.core.$ZodIssue): string {
  const where = [part, ...issue.path.map(String)].join('.');
  return `${where}: ${issue.message}`;
}

/** Parses params, query and body with zod; the first problem (or a NUL character in the result) becomes a 422 naming the field. */
export function validate<S extends Schemas>(schemas: S): Middleware {
  return async (ctx, next) => {
    const sources = { params: (ctx as { params?: unknown }).params ?? {}, query: ctx.query, body: ctx.request.body ?? {} };
    const input: Record<string, unknown> = {};
    for (const part of ['params', 'query', 'body'] as const) {
      const schema = schemas[part];
      if (!schema) continue;
      const result = schema.safeParse(sources[part]);
      if (!result.success) throw new HttpError(422, describeIssue(part, result.error.issues[0]));
      // JSON inside a query parameter (labels=["..."]) is decoded only here, after the raw NUL check.
      if (holdsNul(result.data)) throw new HttpError(422, `${part}: text must not contain NUL characters`);
      input[part] = result.data;
    }
    ctx.state.input = input;
    await next();
  };
}
