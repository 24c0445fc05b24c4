import { log, ParentClosePolicy, startChild, uuid4, workflowInfo } from '@temporalio/workflow';
import { mapLayout } from './activityProxies';
import type { MapLayoutInput } from './contracts';
import { runTask } from './runTask';

/**
 * MAP_LAYOUT: records the task of the layout an analysis left due, then lays the map out (the dataset is READY
 * meanwhile; its Map says so). Nothing when no layout is due (an analysis that placed new media on the map as it is).
 * The row is written by the workflow itself, so no task row ever waits for a workflow that was never started.
 */
export async function mapLayoutWorkflow(input: MapLayoutInput): Promise<void> {
  await runTask('MAP_LAYOUT', input, async () => {
    const due = await mapLayout.recordMapLayoutTask(input);
    if (due) await mapLayout.layOutDueMap(due);
  });
}

/**
 * After an analysis commits: starts the MAP_LAYOUT workflow under a new task id, left running when this one ends
 * (docs/decisions.md "The map is laid out after READY").
 */
export async function startMapLayout(ref: { taskId: string; datasetId: string }): Promise<void> {
  try {
    const input: MapLayoutInput = { taskId: uuid4(), datasetId: ref.datasetId, byTaskId: ref.taskId };
    // The analysing task's search attributes (dataset, creator), as the map task's type.
    const attributes = workflowInfo().typedSearchAttributes.getAll().map((pair) => (pair.key.name === 'TaskType' ? { ...pair, value: 'MAP_LAYOUT' } : pair));
    await startChild(mapLayoutWorkflow, {
      workflowId: input.taskId,
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: attributes as never,
    });
  } catch (error) {
    // The analysing task has committed (COMPLETED, its dataset READY): its end must not change; the map stays due.
    log.error('The map layout could not be started', { error: String(error) });
  }
}
