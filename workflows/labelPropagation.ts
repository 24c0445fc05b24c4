import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { createLabelPropagationActivities } from '../activities/labelPropagation';
import { HOUR_LONG } from './activityProxies';
import type { LabelPropagationInput } from './contracts';
import { runTask } from './runTask';

const labels = proxyActivities<ReturnType<typeof createLabelPropagationActivities>>(HOUR_LONG);

/** LABEL_PROPAGATION: one labelling of seeds and neighbours while the dataset is READ ONLY; the task records the outcome. */
export async function labelPropagationWorkflow(input: LabelPropagationInput): Promise<void> {
  const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus };
  await runTask('LABEL_PROPAGATION', input, async () => {
    const result = await labels.propagateLabel(input);
    await CancellationScope.nonCancellable(() => labels.completeLabelPropagation({ ...release, ...result, label: input.label }));
  });
}
