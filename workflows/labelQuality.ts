import { ApplicationFailure, CancellationScope, patched } from '@temporalio/workflow';
import { labelQuality } from './activityProxies';
import { checkLabelsInChunks, LABEL_CHUNKS_PATCH } from './labelQualityChunks';
import type { LabelQualityInput } from './contracts';
import { runTask } from './runTask';

/** LABEL_QUALITY: one check of the declared labels while the dataset is READ ONLY; the task records the outcome. */
export async function labelQualityWorkflow(input: LabelQualityInput): Promise<void> {
  const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus };
  await runTask('LABEL_QUALITY', input, async () => {
    const fields = { label: input.labelField, split: input.splitField };
    const summary = patched(LABEL_CHUNKS_PATCH)
      ? await checkLabelsInChunks({ taskId: input.taskId, datasetId: input.datasetId, fields, stage: 'check_labels' })
      : await labelQuality.checkLabelQuality(input);
    if (!summary) throw ApplicationFailure.create({ message: 'a check with its fields given always runs', nonRetryable: true });
    await CancellationScope.nonCancellable(() => labelQuality.completeLabelQuality({ ...release, ...summary }));
  });
}
