import { CancellationScope, patched, proxyActivities } from '@temporalio/workflow';
import pLimit from 'p-limit';
import type { createSelectionActivities } from '../activities/selection';
import type { SelectionResult } from '../services/selection';
import { HOUR_LONG } from './activityProxies';
import type { SelectionInput } from './contracts';
import { runTask } from './runTask';

const selection = proxyActivities<ReturnType<typeof createSelectionActivities>>(HOUR_LONG);

/** Patch id of the choice spread over workers: workflows that started before it keep the one-activity choice. */
export const SELECTION_CHUNKS_PATCH = 'selection-chunks';

/**
 * The choice as fan-out: chunks of the pool read (and sketched), `concurrency` at a time, by every worker on the
 * queue (a killed worker loses only the chunks it held: Temporal retries them), then one step that chooses from them
 * all and writes the tag. The stored chunks are forgotten however it ends.
 */
async function selectInChunks(input: SelectionInput): Promise<SelectionResult> {
  try {
    const plan = await selection.planSelectionChunks(input);
    const step = { ...input, chunks: plan.chunks.length };
    const limit = pLimit(plan.concurrency);
    // After a failure no further chunk starts, and the stored chunks are forgotten once the running ones ended.
    let failed: { error: unknown } | undefined;
    const read = async (chunk: (typeof plan.chunks)[number]) => {
      if (failed) return;
      try {
        await selection.readSelectionChunk({ ...step, chunk });
      } catch (error) {
        failed ??= { error };
      }
    };
    await Promise.all(plan.chunks.map((chunk) => limit(() => read(chunk))));
    if (failed) throw failed.error;
    return await selection.chooseFromSelectionParts(step);
  } finally {
    await CancellationScope.nonCancellable(() => selection.clearSelectionParts({ taskId: input.taskId, datasetId: input.datasetId }));
  }
}

/** SELECTION: one choice written as a tag while the dataset is READ ONLY; the task records the outcome. */
export async function selectionWorkflow(input: SelectionInput): Promise<void> {
  const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus, tag: input.tag, count: input.count };
  await runTask('SELECTION', input, async () => {
    const result = patched(SELECTION_CHUNKS_PATCH) ? await selectInChunks(input) : await selection.selectItems(input);
    await CancellationScope.nonCancellable(() => selection.completeSelection({ ...release, ...result }));
  });
}
