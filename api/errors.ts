import { isGrpcServiceError } from '@temporalio/client';
import { KnexTimeoutError } from '../db/errors';
import { DomainError, type DomainErrorKind } from '../lib/errors';
import { IdentityProviderError } from '../lib/identity/keycloakAdmin';

/** An error of the HTTP edge itself (request parsing, routing) whose message is safe to show as `{"detail": message}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_OF: Record<DomainErrorKind, number> = {
  not_found: 404,
  forbidden: 403,
  conflict: 409,
  invalid: 400,
  unprocessable: 422,
  too_large: 413,
};

export interface KnownError {
  status: number;
  detail: string;
  /** Sent as `Retry-After` (seconds): the failure is expected to pass. */
  retryAfterSeconds?: number;
}

/** What a client told "try again later" should wait: about one restart of a crashed dependency. */
export const RETRY_AFTER_SECONDS = 5;

const DATABASE_DOWN = 'The database is unavailable; try again shortly';
const TEMPORAL_DOWN = 'The workflow service (Temporal) is unavailable; try again shortly';
const DEPENDENCY_DOWN = 'A service the API depends on is unreachable; try again shortly';
const IDENTITY_PROVIDER_DOWN = 'The identity provider is unavailable; try again shortly';
const WRITES_CONFLICTED = 'This change and a concurrent one waited on each other, and the database stopped this one; try again';

// SQLSTATEs of a Postgres that is shutting down, recovering, full or too slow; class 08 (connection exceptions) too.
// 57014: a statement cancelled by statement_timeout (DATABASE_QUERY_TIMEOUT_SECONDS).
const PG_UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
// A deadlock or a serialization failure: Postgres rolled the transaction back, and the same request can succeed now
// (e.g. a label written while add_media places the same new media, which Explore's change counter locks).
const PG_CONFLICT_CODES = new Set(['40P01', '40001']);
// node-postgres reports a connection lost mid-query, or not opened within connectionTimeoutMillis ("timeout expired"), by message only.
const PG_CONNECTION_LOST = /Connection terminated|Connection ended unexpectedly|encountered a connection error and is not queryable|^timeout expired$|Query read timeout$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN']);
// gRPC: the server is unreachable (UNAVAILABLE), did not answer in time (DEADLINE_EXCEEDED) or sheds load (RESOURCE_EXHAUSTED).
const GRPC_UNAVAILABLE_CODES = new Set([14, 4, 8]);

/** The error and what it wraps: `cause` (Temporal, Node), `nativeError` (objection), `errors` (AggregateError of a refused dual-stack connect). */
function* errorChain(error: unknown, depth = 0): Generator<unknown> {
  if (error === null || typeof error !== 'object' || depth > 5) return;
  yield error;
  const wrapper = error as { cause?: unknown; nativeError?: unknown; errors?: unknown };
  yield* errorChain(wrapper.cause, depth + 1);
  yield* errorChain(wrapper.nativeError, depth + 1);
  if (Array.isArray(wrapper.errors)) for (const inner of wrapper.errors) yield* errorChain(inner, depth + 1);
}

/** The detail of a 503 when `error` says Postgres or Temporal cannot be reached or served it right now; undefined otherwise. */
function unavailableDependency(error: unknown): string | undefined {
  for (const link of errorChain(error)) {
    if (link instanceof KnexTimeoutError) return DATABASE_DOWN;
    if (link instanceof IdentityProviderError && link.kind === 'unavailable') return IDENTITY_PROVIDER_DOWN;
    if (isGrpcServiceError(link)) {
      if (GRPC_UNAVAILABLE_CODES.has(link.code)) return TEMPORAL_DOWN;
      continue;
    }
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string' && PG_CONFLICT_CODES.has(code)) return WRITES_CONFLICTED;
    if (typeof code === 'string' && (PG_UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return DATABASE_DOWN;
    if (link instanceof Error && PG_CONNECTION_LOST.test(link.message)) return DATABASE_DOWN;
    if (typeof code === 'string' && SOCKET_CODES.has(code)) return DEPENDENCY_DOWN;
  }
  return undefined;
}

/** The status and detail of an error the caller may see; undefined for internal errors. */
export function knownError(error: unknown): KnownError | undefined {
  if (error instanceof HttpError) return { status: error.status, detail: error.message };
  if (error instanceof DomainError) return { status: STATUS_OF[error.kind], detail: error.message };
  const unavailable = unavailableDependency(error);
  if (unavailable) return { status: 503, detail: unavailable, retryAfterSeconds: RETRY_AFTER_SECONDS };
  return undefined;
}
