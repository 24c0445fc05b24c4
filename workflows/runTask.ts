import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { TaskInput, TaskType } from '../lib/tasks';
import { tasks } from './activityProxies';
import { failureMessage } from './failures';

/** The failure type a task's workflow fails with: DATASET_CREATION → DatasetCreationFailed. */
function failureType(taskType: TaskType): string {
  const words = taskType.toLowerCase().split('_');
  return `${words.map((word) => word[0].toUpperCase() + word.slice(1)).join('')}Failed`;
}

/**
 * The envelope of every task's workflow: runs `steps`; when they fail or the workflow is cancelled, the task
 * ends FAILED (with the failure's own message) or ABORTED, its datasets where its module (lib/tasks) says, in a
 * step no cancellation interrupts. Then a cancellation stays one, and a failure fails the workflow with a
 * non-retryable `<Type>Failed`.
 */
export async function runTask<T extends TaskType>(taskType: T, input: TaskInput<T>, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (error) {
    const aborted = isCancellation(error);
    const message = aborted ? 'Aborted by user' : failureMessage(error);
    await CancellationScope.nonCancellable(() => tasks.endTaskUnfinished({ taskType, input, aborted, message }));
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: failureType(taskType), message, nonRetryable: true });
  }
}
