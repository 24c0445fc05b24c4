/**
 * Domain errors: thrown below `api/` with a message safe to show the caller. Only api/ knows the
 * HTTP status each kind maps to.
 */
export type DomainErrorKind =
  | 'not_found'
  | 'forbidden'
  | 'conflict'
  /** The request is well-formed but its values are not acceptable (the spec's 400s). */
  | 'invalid'
  /** The request's parameters are malformed (the spec's 422s). */
  | 'unprocessable'
  | 'too_large';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (message: string) => new DomainError('not_found', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const invalid = (message: string) => new DomainError('invalid', message);
export const unprocessable = (message: string) => new DomainError('unprocessable', message);
export const tooLarge = (message: string) => new DomainError('too_large', message);

export const datasetNotFound = () => notFound('Dataset not found');

/**
 * A guarded dataset status change a task's progress depends on did not happen (the dataset is in
 * neither the status it moves from nor the one it moves to): the step fails at once, never retried.
 */
export class TransitionRefused extends Error {
  override readonly name = 'TransitionRefused';
}
