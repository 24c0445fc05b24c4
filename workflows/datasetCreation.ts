import {
  ApplicationFailure,
  CancellationScope,
  defineQuery,
  isCancellation,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createAnalysisActivities } from '../activities/analysis';
import type { createDatasetLifecycleActivities } from '../activities/datasetLifecycle';
import type { createEmbeddingActivities } from '../activities/embedding';
import type { createIngestActivities } from '../activities/ingest';
import { failureMessage } from './failures';
import { inferenceQueueOf } from './taskQueues';

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

const lifecycle = proxyActivities<ReturnType<typeof createDatasetLifecycleActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 20, maximumInterval: '30 seconds' },
});

const ingest = proxyActivities<ReturnType<typeof createIngestActivities>>({
  startToCloseTimeout: '12 hours',
  heartbeatTimeout: '20 seconds',
  retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
});

/** Inference runs on the inference queue beside the queue this workflow runs on. */
function embeddingActivities() {
  return proxyActivities<ReturnType<typeof createEmbeddingActivities>>({
    taskQueue: inferenceQueueOf(workflowInfo().taskQueue),
    startToCloseTimeout: '12 hours',
    heartbeatTimeout: '2 minutes',
    retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
  });
}

const analysis = proxyActivities<ReturnType<typeof createAnalysisActivities>>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
});

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
    await embeddingActivities().embedDatasetMedia({ taskId, datasetId });
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
