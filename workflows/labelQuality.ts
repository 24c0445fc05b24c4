import { ApplicationFailure, CancellationScope, isCancellation, patched } from '@temporalio/workflow';
import { labelQuality } from './activityProxies';
import { failureMessage } from './failures';
import { checkLabelsInChunks, LABEL_CHUNKS_PATCH } from './labelQualityChunks';
import type { LabelQualityInput } from './contracts';

/** LABEL_QUALITY: one check of the declared labels while the dataset is READ ONLY; the task records the outcome. */
export async function labelQualityWorkflow(input: LabelQualityInput): Promise<void> {
  const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus };
  try {
    const fields = { label: input.labelField, split: input.splitField };
    const summary = patched(LABEL_CHUNKS_PATCH)
      ? await checkLabelsInChunks({ taskId: input.taskId, datasetId: input.datasetId, fields, stage: 'check_labels' })
      : await labelQuality.checkLabelQuality(input);
    if (!summary) throw ApplicationFailure.create({ message: 'a check with its fields given always runs', nonRetryable: true });
    await CancellationScope.nonCancellable(() => labelQuality.completeLabelQuality({ ...release, ...summary }));
  } catch (error) {
    const aborted = isCancellation(error);
    const message = aborted ? 'Aborted by user' : failureMessage(error);
    await CancellationScope.nonCancellable(() => labelQuality.failLabelQuality({ ...release, message, aborted }));
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'LabelQualityFailed', message, nonRetryable: true });
  }
}
