import { ActivityFailure, ChildWorkflowFailure } from '@temporalio/workflow';

/** The message a task records for a failure: the activity's own error, not the wrappers' (a child workflow's included). */
export function failureMessage(error: unknown): string {
  if ((error instanceof ActivityFailure || error instanceof ChildWorkflowFailure) && error.cause) return failureMessage(error.cause);
  return error instanceof Error ? error.message : String(error);
}
