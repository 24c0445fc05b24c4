import { CancellationScope, patched, setHandler, uuid4 } from '@temporalio/workflow';
import { embedding, lifecycle, snapshots } from './activityProxies';
import { creationPhaseQuery, type CreationPhase, type DatasetCreationInput } from './contracts';
import { analyzeInChunks } from './knnAnalysis';
import { checkLabelsInChunks } from './labelQualityChunks';
import { startMapLayout } from './mapLayout';
import { indexMediaChunks } from './mediaChunks';
import { runTask } from './runTask';

/**
 * DATASET_CREATION: ingest and embed the uploaded files chunk by chunk (MEDIA_CHUNKS), cluster and score, check the
 * labels their folders gave (labels_from=folder), snapshot the result (reason `creation`), then commit (READY) and
 * start the MAP_LAYOUT task that lays out its map.
 */
export async function datasetCreationWorkflow(input: DatasetCreationInput): Promise<void> {
  let phase: CreationPhase = 'starting';
  setHandler(creationPhaseQuery, () => phase);
  const { taskId, datasetId } = input;
  await runTask('DATASET_CREATION', input, async () => {
    await lifecycle.beginDatasetCreation({ taskId, datasetId });
    phase = 'indexing';
    await indexMediaChunks({ taskId, datasetId, batchId: input.batchId, selection: { transactionId: input.transactionId } });
    await embedding().embedDatasetMedia({ taskId, datasetId });
    phase = 'analyzing';
    await analyzeInChunks({ taskId, datasetId });
    if (patched('creation-labels-from-folders')) {
      await checkLabelsInChunks({ taskId, datasetId, fields: { transactionId: input.transactionId }, stage: 'analyze' });
    }
    phase = 'snapshot';
    await snapshots.takeCreationSnapshot({ datasetId, snapshotId: uuid4() });
    phase = 'commit';
    await CancellationScope.nonCancellable(() => lifecycle.commitDatasetCreation({ taskId, datasetId }));
    // READY, then the map: laid out by a task of its own (histories started before it laid it out in the analysis).
    if (patched('map-after-commit')) await CancellationScope.nonCancellable(() => startMapLayout({ taskId, datasetId }));
    phase = 'done';
  });
}
