import type { RouterContext } from '@koa/router';
import type { z } from 'zod';
import type { User } from '../db/models';
import type { Db } from '../db/connection';
import type { Logger } from '../lib/logger';
import type { Authentication } from '../services/identity';

/** What every request carries from api/middleware/requestContext.ts on. */
export interface RequestState {
  requestId: string;
  log: Logger;
}

/** A request that requireUser, requireSession or requireSessionOrBearer let through. */
export interface ApiState extends RequestState {
  user: User;
  /** What admitted the user: a bearer token, a session, or nothing (auth disabled). */
  authentication: Authentication;
}

/** The parts of a request a route validates: path parameters, query string and JSON body. */
export interface RequestSchemas {
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
}

/** What validation hands the handler: each declared part, parsed by its schema. */
export type InputOf<S extends RequestSchemas> = { [K in keyof S]-?: S[K] extends z.ZodType ? z.output<S[K]> : never };

/** The context a handler receives: the request state plus the input of its route's schemas. */
export type ApiContext<S extends RequestSchemas = RequestSchemas, State extends RequestState = ApiState> = RouterContext<
  State & { input: InputOf<S> }
>;

declare module 'koa' {
  /** The app's database, for the guards `mount` adds from a route's spec (its handlers take theirs from their router's deps). */
  interface DefaultContext {
    db: Db;
  }
}
