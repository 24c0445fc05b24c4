import { ApplicationFailure, CancellationScope, defineQuery, isCancellation, setHandler } from '@temporalio/workflow';
import { analysis, embedding, ingest, lifecycle } from './activityProxies';
import { failureMessage } from './failures';

export interface DatasetCreationInput {
  taskId: string;
  datasetId: string;
  transactionId: number;
  /** Media created by this run carry it, so a batch can be told apart from later additions. */
  batchId: string;
}

export type CreationPhase = 'starting' | 'ingesting' | 'embedding' | 'analyzing' | 'commit' | 'done';

/** Where the workflow is; the API refuses to abort once this says `commit`. */
export const creationPhaseQuery = defineQuery<CreationPhase>('creationPhase');

/** DATASET_CREATION: ingest the uploaded files, embed them, cluster and score, then commit. */
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
