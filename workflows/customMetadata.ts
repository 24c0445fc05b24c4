import { CancellationScope, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createCustomMetadataActivities } from '../activities/customMetadata';
import type { createEmbeddingActivities } from '../activities/embedding';
import { HOUR_LONG } from './activityProxies';
import { inferenceQueueOf, type CustomMetadataInput } from './contracts';
import { recheckLabels } from './labelQualityChunks';
import { runTask } from './runTask';

const metadata = proxyActivities<ReturnType<typeof createCustomMetadataActivities>>(HOUR_LONG);

/** CUSTOM_METADATA: one import of captions, labels and fields (then a label-quality check, when declared) while the dataset is READ ONLY; the task records the outcome. */
export async function customMetadataWorkflow(input: CustomMetadataInput): Promise<void> {
  const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus };
  await runTask('CUSTOM_METADATA', input, async () => {
    const result = await metadata.importCustomMetadata(input);
    const { embedCaptions } = proxyActivities<ReturnType<typeof createEmbeddingActivities>>({
      taskQueue: inferenceQueueOf(workflowInfo().taskQueue),
      ...HOUR_LONG,
    });
    await embedCaptions({ datasetId: input.datasetId });
    // Labels and splits may have changed: a dataset with declared label fields is checked again.
    await recheckLabels({ taskId: input.taskId, datasetId: input.datasetId });
    await CancellationScope.nonCancellable(() => metadata.completeCustomMetadata({ ...release, ...result }));
  });
}
