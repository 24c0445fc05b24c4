import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createAnalysisActivities } from '../activities/analysis';
import type { createBatchSourceActivities } from '../activities/batchSources';
import type { createDatasetLifecycleActivities } from '../activities/datasetLifecycle';
import type { createEmbeddingActivities } from '../activities/embedding';
import type { createIngestActivities } from '../activities/ingest';
import type { createViewMonitoringActivities } from '../activities/viewMonitoring';
import { inferenceQueueOf } from './contracts';

// Timeouts and retries per kind of activity, shared by every workflow that indexes media.

export const lifecycle = proxyActivities<ReturnType<typeof createDatasetLifecycleActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 20, maximumInterval: '30 seconds' },
});

export const sources = proxyActivities<ReturnType<typeof createBatchSourceActivities>>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
});

export const ingest = proxyActivities<ReturnType<typeof createIngestActivities>>({
  startToCloseTimeout: '12 hours',
  heartbeatTimeout: '20 seconds',
  retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
});

/** Inference runs on the inference queue beside the queue the calling workflow runs on. */
export function embedding() {
  return proxyActivities<ReturnType<typeof createEmbeddingActivities>>({
    taskQueue: inferenceQueueOf(workflowInfo().taskQueue),
    startToCloseTimeout: '12 hours',
    heartbeatTimeout: '2 minutes',
    retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
  });
}

export const analysis = proxyActivities<ReturnType<typeof createAnalysisActivities>>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '2 minutes',
  retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
});

export const monitoring = proxyActivities<ReturnType<typeof createViewMonitoringActivities>>({
  startToCloseTimeout: '30 minutes',
  retry: { maximumAttempts: 5, maximumInterval: '1 minute' },
});
