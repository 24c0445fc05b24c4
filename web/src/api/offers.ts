import type { Dataset } from './client';

export type OfferedOperation = keyof Dataset['operations'];

/**
 * Why `operation` cannot start on the dataset now, in the words of the request's refusal, or undefined when it can:
 * the API answers it from the server's state machine and access policy (the dataset record's `operations`).
 */
export function refusalOf(dataset: Dataset, operation: OfferedOperation): string | undefined {
  return dataset.operations[operation].refusal ?? undefined;
}
