import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createCustomMetadataActivities, CustomMetadataInput } from '../activities/customMetadata';

const metadata = proxyActivities<ReturnType<typeof createCustomMetadataActivities>>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
});

/** CUSTOM_METADATA: one import of captions, labels and fields; the task records the outcome. */
export async function customMetadataWorkflow(input: CustomMetadataInput): Promise<void> {
  try {
    await metadata.importCustomMetadata(input);
  } catch (error) {
    const aborted = isCancellation(error);
    const message = error instanceof ActivityFailure && error.cause ? error.cause.message : (error as Error).message;
    await CancellationScope.nonCancellable(() => metadata.failCustomMetadata({ taskId: input.taskId, message, aborted }));
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'CustomMetadataFailed', message, nonRetryable: true });
  }
}
