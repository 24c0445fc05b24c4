import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createLabelPropagationActivities } from '../activities/labelPropagation';
import { HOUR_LONG } from './activityProxies';
import { failureMessage } from './failures';
import type { LabelPropagationInput } from './contracts';

const labels = proxyActivities<ReturnType<typeof createLabelPropagationActivities>>(HOUR_LONG);

/** LABEL_PROPAGATION: one labelling of seeds and neighbours while the dataset is READ ONLY; the task records the outcome. */
export async function labelPropagationWorkflow(input: LabelPropagationInput): Promise<void> {
  const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus };
  try {
    const result = await labels.propagateLabel(input);
    await CancellationScope.nonCancellable(() => labels.completeLabelPropagation({ ...release, ...result, label: input.label }));
  } catch (error) {
    const aborted = isCancellation(error);
    const message = aborted ? 'Aborted by user' : failureMessage(error);
    await CancellationScope.nonCancellable(() => labels.failLabelPropagation({ ...release, message, aborted }));
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'LabelPropagationFailed', message, nonRetryable: true });
  }
}
