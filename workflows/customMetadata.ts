import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createCustomMetadataActivities, CustomMetadataInput } from '../activities/customMetadata';
import type { createEmbeddingActivities } from '../activities/embedding';
import { failureMessage } from './failures';
import { inferenceQueueOf } from './contracts';

const metadata = proxyActivities<ReturnType<typeof createCustomMetadataActivities>>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
});

/** CUSTOM_METADATA: one import of captions, labels and fields; the task records the outcome. */
export async function customMetadataWorkflow(input: CustomMetadataInput): Promise<void> {
  try {
    const result = await metadata.importCustomMetadata(input);
    const { embedCaptions } = proxyActivities<ReturnType<typeof createEmbeddingActivities>>({
      taskQueue: inferenceQueueOf(workflowInfo().taskQueue),
      startToCloseTimeout: '1 hour',
      heartbeatTimeout: '2 minutes',
      retry: { maximumAttempts: 5 },
    });
    await embedCaptions({ datasetId: input.datasetId });
    await metadata.completeCustomMetadata({ taskId: input.taskId, ...result });
  } catch (error) {
    const aborted = isCancellation(error);
    const message = failureMessage(error);
    await CancellationScope.nonCancellable(() => metadata.failCustomMetadata({ taskId: input.taskId, message, aborted }));
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'CustomMetadataFailed', message, nonRetryable: true });
  }
}
