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
import type { createMapLayoutActivities } from '../activities/mapLayout';
import type { createSnapshotActivities } from '../activities/snapshots';
import type { createTaskActivities } from '../activities/tasks';
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

/**
 * How long Temporal waits for a heartbeat before it gives an attempt to another worker. Long activities heartbeat
 * every 5 s from a timer while they run (activities/liveness.ts), so a killed or frozen worker's attempt moves on
 * after 30 s; see "Long activities heartbeat on a timer" in docs/decisions.md.
 */
export const LIVENESS_TIMEOUT = '30 seconds';

/** An activity of a task that works for up to an hour, heartbeating. */
export const HOUR_LONG = { startToCloseTimeout: '1 hour', heartbeatTimeout: LIVENESS_TIMEOUT, retry: OUTAGE_RETRY } as const;

/** Every task's end when it fails or is aborted (workflows/runTask.ts). */
export const tasks = proxyActivities<ReturnType<typeof createTaskActivities>>({
  startToCloseTimeout: '1 minute',
  retry: OUTAGE_RETRY,
});

export const lifecycle = proxyActivities<ReturnType<typeof createDatasetLifecycleActivities>>({
  startToCloseTimeout: '1 minute',
  retry: OUTAGE_RETRY,
});

export const sources = proxyActivities<ReturnType<typeof createBatchSourceActivities>>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: LIVENESS_TIMEOUT,
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
    heartbeatTimeout: LIVENESS_TIMEOUT,
    retry: OUTAGE_RETRY,
  });
}

export const enrichment = proxyActivities<ReturnType<typeof createEnrichmentActivities>>({
  startToCloseTimeout: '1 minute',
  retry: OUTAGE_RETRY,
});

export const analysis = proxyActivities<ReturnType<typeof createAnalysisActivities>>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: LIVENESS_TIMEOUT,
  retry: OUTAGE_RETRY,
});

/** The analysis's activities and the incremental reindex's (its chunks as knnGraph, its merge as storedGraph). */
type KnnActivities = ReturnType<typeof createKnnGraphActivities> & ReturnType<typeof createIncrementalKnnActivities>;

/** The analysis as fan-out: a neighbour-search chunk held by a dead worker goes to another after 30 s. */
export const knnGraph = proxyActivities<KnnActivities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: LIVENESS_TIMEOUT,
  retry: OUTAGE_RETRY,
});

/**
 * The final clustering step lets its timer heartbeat through between UMAP's epochs and the clustering's levels,
 * but UMAP's neighbour search over the map's 5,000-vector sample is one synchronous block (22 s measured with
 * the 2 cores four times oversubscribed): 60 s keeps a margin over it.
 */
export const storedGraph = proxyActivities<KnnActivities>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '60 seconds',
  retry: OUTAGE_RETRY,
});

/** The map's layout after an analysis commits: UMAP's synchronous blocks as the final clustering step's (storedGraph). */
export const mapLayout = proxyActivities<ReturnType<typeof createMapLayoutActivities>>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '60 seconds',
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
const copyOptions = { startToCloseTimeout: '6 hours', heartbeatTimeout: LIVENESS_TIMEOUT, retry: OUTAGE_RETRY } as const;

export const versions = proxyActivities<ReturnType<typeof createVersionActivities>>(copyOptions);

export const snapshots = proxyActivities<ReturnType<typeof createSnapshotActivities>>(copyOptions);

/** Label-quality checks: their own task, and again after a full index of a dataset with declared labels. */
export const labelQuality = proxyActivities<ReturnType<typeof createLabelQualityActivities>>(HOUR_LONG);

/** A label-quality check's neighbour-search chunks heartbeat every batch of queries, so a chunk held by a dead worker goes to another after 30 s. */
export const labelChunks = proxyActivities<ReturnType<typeof createLabelQualityActivities>>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '30 seconds',
  retry: OUTAGE_RETRY,
});
