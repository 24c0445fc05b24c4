import { ApplicationFailure, CancellationScope, isCancellation, setHandler, uuid4 } from '@temporalio/workflow';
import { analysis, embedding, ingest, lifecycle, snapshots } from './activityProxies';
import { creationPhaseQuery, type CreationPhase, type DatasetCreationInput } from './contracts';
import { failureMessage } from './failures';

/** DATASET_CREATION: ingest the uploaded files, embed them, cluster and score, snapshot the result (reason `creation`), then commit. */
export async function datasetCreationWorkflow(input: DatasetCreationInput): Promise<void> {
  let phase: CreationPhase = 'starting';
  setHandler(creationPhaseQuery, () => phase);
  const { taskId, datasetId } = input;
  try {
    await lifecycle.beginDatasetCreation({ taskId, datasetId });
    phase = 'ingesting';
    await ingest.ingestUploadedFiles(input);
    phase = 'embedding';
    await embedding().embedDatasetMedia({ taskId, datasetId });
    phase = 'analyzing';
    await analysis.analyzeDataset({ taskId, datasetId });
    phase = 'snapshot';
    await snapshots.takeCreationSnapshot({ datasetId, snapshotId: uuid4() });
    phase = 'commit';
    await CancellationScope.nonCancellable(() => lifecycle.commitDatasetCreation({ taskId, datasetId }));
    phase = 'done';
  } catch (error) {
    const aborted = isCancellation(error);
    await CancellationScope.nonCancellable(() =>
      lifecycle.failDatasetTask({ taskId, datasetId, aborted, message: aborted ? 'Aborted by user' : failureMessage(error) }),
    );
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'DatasetCreationFailed', message: failureMessage(error), nonRetryable: true });
  }
}
