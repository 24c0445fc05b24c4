import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createVisualSearchActivities } from '../activities/visualSearch';
import { inferenceQueueOf, type QueryImage } from './contracts';

/** Short workflow behind the anchor upload: the API never runs the model itself. */
export async function encodeQueryImageWorkflow(query: QueryImage): Promise<void> {
  const { encodeQueryImage } = proxyActivities<ReturnType<typeof createVisualSearchActivities>>({
    taskQueue: inferenceQueueOf(workflowInfo().taskQueue),
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 3 },
  });
  await encodeQueryImage(query);
}
