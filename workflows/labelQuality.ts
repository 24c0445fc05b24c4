import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import { labelQuality } from './activityProxies';
import { failureMessage } from './failures';
import type { LabelQualityInput } from './contracts';

/** LABEL_QUALITY: one check of the declared labels while the dataset is READ ONLY; the task records the outcome. */
export async function labelQualityWorkflow(input: LabelQualityInput): Promise<void> {
  const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus };
  try {
    const summary = await labelQuality.checkLabelQuality(input);
    await CancellationScope.nonCancellable(() => labelQuality.completeLabelQuality({ ...release, ...summary }));
  } catch (error) {
    const aborted = isCancellation(error);
    const message = aborted ? 'Aborted by user' : failureMessage(error);
    await CancellationScope.nonCancellable(() => labelQuality.failLabelQuality({ ...release, message, aborted }));
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'LabelQualityFailed', message, nonRetryable: true });
  }
}
