import type { Router, RouterMiddleware } from '@koa/router';
import type { Middleware } from 'koa';
import type { z } from 'zod';
import { validate } from './middleware/validate';
import { refuseCrossSiteRead } from './middleware/sameOrigin';
import { refuseWriteInStatus } from './middleware/datasetState';
import type { DatasetOperation } from '../lib/datasetStates';
import type { InputOf, RequestSchemas, RequestState } from './state';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 503;

export interface SuccessResponse {
  description: string;
  /** The JSON body; none for an empty body. */
  schema?: z.ZodType;
  /** For bodies that are not JSON (media bytes, an event stream). */
  contentType?: string;
  /** Response headers the handler sets, by name: their description (string values). */
  headers?: Record<string, string>;
}

/**
 * One route: what it takes (validated before the handler runs), what it answers, and how it is
 * documented. Routers mount it and the OpenAPI document is generated from it (api/specs/index.ts).
 */
export interface RouteSpec<S extends RequestSchemas = RequestSchemas> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Below /api/v1, in Koa's syntax: `/dataset/:dataset_id/tags`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /**
   * Who may call it: anyone, a user (bearer token, or the session cookie on premises), a browser
   * session only, or a session or bearer token in every run mode (a user's own API keys).
   */
  auth: 'none' | 'user' | 'session' | 'sessionOrToken';
  /** A GET the contract makes create or start something: a browser must send it from this service's pages (mount puts refuseCrossSiteRead first). */
  changesState?: true;
  /**
   * What a write to a dataset asks the state machine (lib/datasetStates.ts), declared by every route that writes
   * under a dataset (a unit test checks): an operation `mount` checks before the handler (409 with the reason,
   * api/middleware/datasetState.ts); `service` when the service asks the state machine itself, claiming the dataset
   * for a task in one guarded update or holding its status while it writes; `any` when no status can lose the write.
   */
  datasetState?: DatasetOperation | 'service' | 'any';
  request: S;
  /** What the handler reads and checks itself (a multipart or urlencoded form; a query whose errors are 400s): documented only. */
  handlerReads?: { query?: z.ZodObject; form?: z.ZodObject };
  /** The status of input that fails `request`'s schemas: 422, or 400 where the spec says so (user management). */
  invalidInputStatus?: 400 | 422;
  /** Checks that answer before validation (a missing entity_type is a 400, not a 422). */
  before?: Middleware[];
  responses: Partial<Record<200 | 201 | 202 | 302, SuccessResponse>>;
  /** Error statuses beyond the ones every route has (401 when authenticated, 422 when it validates input). */
  errors?: Array<ErrorStatus | [ErrorStatus, string]>;
}

export function defineRoute<const S extends RequestSchemas>(spec: RouteSpec<S>): RouteSpec<S> {
  return spec;
}

/** Registers a route: its `before` checks, validation of its schemas, then handlers that receive the typed input. */
export function mount<State extends RequestState, S extends RequestSchemas>(
  router: Router<State>,
  spec: RouteSpec<S>,
  ...handlers: Array<RouterMiddleware<State & { input: InputOf<S> }>>
): void {
  const chain: Array<RouterMiddleware<State & { input: InputOf<S> }>> = [
    ...(spec.changesState ? [refuseCrossSiteRead] : []),
    ...(spec.before ?? []),
    validate(spec.request, spec.invalidInputStatus),
    ...(spec.datasetState && spec.datasetState !== 'service' && spec.datasetState !== 'any' ? [refuseWriteInStatus(spec.datasetState)] : []),
    ...handlers,
  ];
  switch (spec.method) {
    case 'get':
      router.get<{ input: InputOf<S> }>(spec.path, ...chain);
      break;
    case 'post':
      router.post<{ input: InputOf<S> }>(spec.path, ...chain);
      break;
    case 'put':
      router.put<{ input: InputOf<S> }>(spec.path, ...chain);
      break;
    case 'patch':
      router.patch<{ input: InputOf<S> }>(spec.path, ...chain);
      break;
    case 'delete':
      router.delete<{ input: InputOf<S> }>(spec.path, ...chain);
      break;
  }
}
