import { ActivityFailure } from '@temporalio/workflow';

/** The message a task records for a failure: the activity's own error, not the wrapper's. */
export function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
