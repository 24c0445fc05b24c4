import { DomainError, type DomainErrorKind } from '../lib/errors';

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

/** The status and detail of an error the caller may see; undefined for internal errors. */
export function knownError(error: unknown): { status: number; detail: string } | undefined {
  if (error instanceof HttpError) return { status: error.status, detail: error.message };
  if (error instanceof DomainError) return { status: STATUS_OF[error.kind], detail: error.message };
  return undefined;
}
