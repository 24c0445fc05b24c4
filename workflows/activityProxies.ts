import { proxyActivities, workflowInfo, type RetryPolicy } from '@temporalio/workflow';
import type { createAnalysisActivities } from '../activities/analysis';
import type { createBatchSourceActivities } from '../activities/batchSources';
import type { createDatasetLifecycleActivities } from '../activities/datasetLifecycle';
import type { createEmbeddingActivities } from '../activities/embedding';
import type { createEnrichmentActivities, createEnrichmentInferenceActivities } from '../activities/enrichment';
import type { createIncrementalKnnActivities } from '../activities/incrementalKnn';
import type { createIngestActivities } from '../activities/ingest';
import type { createKnnGraphActivities } from '../activities/knnGraph';
import type { createLabelQualityActivities } from '../activities/labelQuality';
import type { createSnapshotActivities } from '../activities/snapshots';
import type { createVersionActivities } from '../activities/versions';
import type { createViewMonitoringActivities } from '../activities/viewMonitoring';
import { inferenceQueueOf } from './contracts';

// Timeouts and retries per kind of activity, shared by every workflow that indexes media.

/**
 * Every task activity rides out an outage of Postgres, the object store or a worker of about half an
 * hour (1 s doubling to 30 s between attempts, 60 attempts, ~28 min of waiting), then fails the task.
 * Non-retryable failures (invalid input) fail at once, and so does a guarded status change that did
 * not happen (TransitionRefused, lib/errors.ts): waiting would not change the status the dataset is in.
 * See "Retries through outages" in docs/decisions.md.
 */
export const OUTAGE_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
  maximumAttempts: 60,
  nonRetryableErrorTypes: ['TransitionRefused'],
};

/** An activity of a task that works for up to an hour, heartbeating. */
export const HOUR_LONG = { startToCloseTimeout: '1 hour', heartbeatTimeout: '2 minutes', retry: OUTAGE_RETRY } as const;

export const lifecycle = proxyActivities<ReturnType<typeof createDatasetLifecycleActivities>>({
  startToCloseTimeout: '1 minute',
  retry: OUTAGE_RETRY,
});

export const sources = proxyActivities<ReturnType<typeof createBatchSourceActivities>>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: '2 minutes',
  retry: OUTAGE_RETRY,
});

export const ingest = proxyActivities<ReturnType<typeof createIngestActivities>>({
  startToCloseTimeout: '12 hours',
  heartbeatTimeout: '20 seconds',
  retry: OUTAGE_RETRY,
});

/**
 * Inference runs on the inference queue beside the queue the calling workflow runs on. Embedding heartbeats every
 * batch (well under a second), so a chunk held by a dead worker is given to another after 30 s.
 */
export function embedding() {
  return proxyActivities<ReturnType<typeof createEmbeddingActivities>>({
    taskQueue: inferenceQueueOf(workflowInfo().taskQueue),
    startToCloseTimeout: '12 hours',
    heartbeatTimeout: '30 seconds',
    retry: OUTAGE_RETRY,
  });
}

/** Enrichment models run on the inference queue too. */
export function enrichmentModels() {
  return proxyActivities<ReturnType<typeof createEnrichmentInferenceActivities>>({
    taskQueue: inferenceQueueOf(workflowInfo().taskQueue),
    startToCloseTimeout: '12 hours',
    heartbeatTimeout: '2 minutes',
    retry: OUTAGE_RETRY,
  });
}

export const enrichment = proxyActivities<ReturnType<typeof createEnrichmentActivities>>({
  startToCloseTimeout: '1 minute',
  retry: OUTAGE_RETRY,
});

export const analysis = proxyActivities<ReturnType<typeof createAnalysisActivities>>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '2 minutes',
  retry: OUTAGE_RETRY,
});

/** The analysis's activities and the incremental reindex's (its chunks as knnGraph, its merge as storedGraph). */
type KnnActivities = ReturnType<typeof createKnnGraphActivities> & ReturnType<typeof createIncrementalKnnActivities>;

/**
 * The analysis as fan-out. A neighbour-search chunk heartbeats every batch of queries, so a chunk held by a dead
 * worker goes to another after 30 s. The final clustering step cannot heartbeat while the map's layout computes
 * (minutes on a busy machine), so it keeps the analysis's 2 minutes.
 */
export const knnGraph = proxyActivities<KnnActivities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '30 seconds',
  retry: OUTAGE_RETRY,
});

export const storedGraph = proxyActivities<KnnActivities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '2 minutes',
  retry: OUTAGE_RETRY,
});

export const monitoring = proxyActivities<ReturnType<typeof createViewMonitoringActivities>>({
  startToCloseTimeout: '30 minutes',
  retry: OUTAGE_RETRY,
});

/**
 * Version copies and the snapshot steps around them: one copy is one transaction, heartbeating per
 * table and every few seconds between (activities/liveness.ts), so an attempt a dead worker held goes
 * to another after 30 s.
 */
const copyOptions = { startToCloseTimeout: '6 hours', heartbeatTimeout: '30 seconds', retry: OUTAGE_RETRY } as const;

export const versions = proxyActivities<ReturnType<typeof createVersionActivities>>(copyOptions);

export const snapshots = proxyActivities<ReturnType<typeof createSnapshotActivities>>(copyOptions);

/** Label-quality checks: their own task, and again after a full index of a dataset with declared labels. */
export const labelQuality = proxyActivities<ReturnType<typeof createLabelQualityActivities>>(HOUR_LONG);
