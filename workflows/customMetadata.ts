import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createCustomMetadataActivities } from '../activities/customMetadata';
import type { createEmbeddingActivities } from '../activities/embedding';
import { HOUR_LONG } from './activityProxies';
import { failureMessage } from './failures';
import { inferenceQueueOf, type CustomMetadataInput } from './contracts';
import { recheckLabels } from './labelQualityChunks';

const metadata = proxyActivities<ReturnType<typeof createCustomMetadataActivities>>(HOUR_LONG);

/** CUSTOM_METADATA: one import of captions, labels and fields (then a label-quality check, when declared) while the dataset is READ ONLY; the task records the outcome. */
export async function customMetadataWorkflow(input: CustomMetadataInput): Promise<void> {
  const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus };
  try {
    const result = await metadata.importCustomMetadata(input);
    const { embedCaptions } = proxyActivities<ReturnType<typeof createEmbeddingActivities>>({
      taskQueue: inferenceQueueOf(workflowInfo().taskQueue),
      ...HOUR_LONG,
    });
    await embedCaptions({ datasetId: input.datasetId });
    // Labels and splits may have changed: a dataset with declared label fields is checked again.
    await recheckLabels({ taskId: input.taskId, datasetId: input.datasetId });
    await CancellationScope.nonCancellable(() => metadata.completeCustomMetadata({ ...release, ...result }));
  } catch (error) {
    const aborted = isCancellation(error);
    const message = aborted ? 'Aborted by user' : failureMessage(error);
    await CancellationScope.nonCancellable(() => metadata.failCustomMetadata({ ...release, message, aborted }));
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'CustomMetadataFailed', message, nonRetryable: true });
  }
}
