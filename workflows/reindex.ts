import { CancellationScope, patched } from '@temporalio/workflow';
import { embedding, lifecycle } from './activityProxies';
import type { ReindexInput } from './contracts';
import { reanalyzeInChunks } from './knnAnalysis';
import { recheckLabels } from './labelQualityChunks';
import { startMapLayout } from './mapLayout';
import { indexMediaChunks } from './mediaChunks';
import { runTask } from './runTask';

/**
 * REINDEX: the dataset is READ ONLY (claimed by the request), then INDEXING while everything it
 * has received is indexed — files of failed batches that never got decoded or embedded included —
 * and the whole dataset is re-clustered and re-scored (its declared labels checked again); it ends READY, and the
 * MAP_LAYOUT task lays out the map anew when the analysis left it due.
 */
export async function reindexWorkflow(input: ReindexInput): Promise<void> {
  const ref = { taskId: input.taskId, datasetId: input.datasetId };
  await runTask('REINDEX', input, async () => {
    await lifecycle.beginReindex(ref);
    await indexMediaChunks({ ...ref, batchId: input.taskId, selection: { pendingOf: input.datasetId } });
    await embedding().embedDatasetMedia(ref);
    await reanalyzeInChunks(ref);
    await recheckLabels(ref);
    await CancellationScope.nonCancellable(() => lifecycle.commitReindex(ref));
    if (patched('map-after-commit')) await CancellationScope.nonCancellable(() => startMapLayout(ref));
  });
}
