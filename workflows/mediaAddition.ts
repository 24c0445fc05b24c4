import { CancellationScope, patched } from '@temporalio/workflow';
import { analysis, embedding, enrichmentModels, lifecycle, monitoring, sources } from './activityProxies';
import type { MediaAdditionInput } from './contracts';
import { reanalyzeInChunks } from './knnAnalysis';
import { checkLabelsInChunks } from './labelQualityChunks';
import { startMapLayout } from './mapLayout';
import { indexMediaChunks } from './mediaChunks';
import { runTask } from './runTask';

/**
 * MEDIA_ADDITION: the dataset is READ ONLY (claimed by the request). The batch is collected,
 * decoded, embedded, enriched by the models the dataset was enriched with, placed into the existing clusters and scored against the whole dataset,
 * its labels checked when its folders gave some (labels_from=folder), and evaluated by the saved views; then the dataset is PARTIAL INDEX, or with auto_reindex it is
 * re-clustered (INDEXING) and ends READY.
 */
export async function mediaAdditionWorkflow(input: MediaAdditionInput): Promise<void> {
  const { taskId, datasetId, batchId } = input;
  const ref = { taskId, datasetId };
  await runTask('MEDIA_ADDITION', input, async () => {
    await lifecycle.beginTask({ ...ref, message: 'Processing added media' });
    const collected = input.source.kind === 'upload' ? undefined : await sources.collectBatchMedia(input);
    await indexMediaChunks({ ...ref, batchId, selection: { transactionId: input.transactionId } });
    await embedding().embedDatasetMedia(ref);
    // An enriched dataset's models run over the new media too (nothing to do for the others).
    await enrichmentModels().enrichDatasetMedia(ref);
    await embedding().embedCaptions(ref);
    await analysis.indexBatch({ ...ref, batchId });
    // labels_from=folder: the labels checked again with the batch's (nothing when the batch brought none).
    if (patched('add-media-labels-from-folders')) {
      await checkLabelsInChunks({ ...ref, fields: { transactionId: input.transactionId }, stage: 'analyze' });
    }
    await monitoring.evaluateViews({ ...ref, batchId });
    if (input.autoReindex) {
      await lifecycle.beginReindex(ref);
      await reanalyzeInChunks(ref);
      await CancellationScope.nonCancellable(() => lifecycle.commitReindex(ref));
      if (patched('map-after-commit')) await CancellationScope.nonCancellable(() => startMapLayout(ref));
    } else {
      await CancellationScope.nonCancellable(() => lifecycle.completeMediaAddition({ ...ref, batchId, missing: collected?.missing ?? [] }));
    }
  });
}
