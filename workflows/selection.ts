import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { createSelectionActivities } from '../activities/selection';
import { HOUR_LONG } from './activityProxies';
import type { SelectionInput } from './contracts';
import { runTask } from './runTask';

const selection = proxyActivities<ReturnType<typeof createSelectionActivities>>(HOUR_LONG);

/** SELECTION: one choice written as a tag while the dataset is READ ONLY; the task records the outcome. */
export async function selectionWorkflow(input: SelectionInput): Promise<void> {
  const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus, tag: input.tag, count: input.count };
  await runTask('SELECTION', input, async () => {
    const result = await selection.selectItems(input);
    await CancellationScope.nonCancellable(() => selection.completeSelection({ ...release, ...result }));
  });
}
