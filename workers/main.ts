import os from 'node:os';
import sharp from 'sharp';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { runMain } from '../lib/runMain';
import { ensureSearchAttributes } from '../lib/temporal/searchAttributes';
import { taskQueues } from '../workflows/contracts';
import { createDb } from '../db/connection';
import { createAnalysisActivities } from '../activities/analysis';
import { createIncrementalKnnActivities } from '../activities/incrementalKnn';
import { createKnnGraphActivities } from '../activities/knnGraph';
import { createMapLayoutActivities } from '../activities/mapLayout';
import { createLabelPropagationActivities } from '../activities/labelPropagation';
import { createLabelQualityActivities } from '../activities/labelQuality';
import { createSelectionActivities } from '../activities/selection';
import { createCustomMetadataActivities } from '../activities/customMetadata';
import { createExportActivities } from '../activities/export';
import { createDatasetLifecycleActivities } from '../activities/datasetLifecycle';
import { createEmbeddingActivities } from '../activities/embedding';
import { createIngestActivities } from '../activities/ingest';
import { createVisualSearchActivities } from '../activities/visualSearch';
import { createBatchSourceActivities } from '../activities/batchSources';
import { createViewMonitoringActivities } from '../activities/viewMonitoring';
import { createVersionActivities } from '../activities/versions';
import { createSnapshotActivities } from '../activities/snapshots';
import { createTaskActivities } from '../activities/tasks';
import { createStorageCollectionActivities } from '../activities/storageCollection';
import { createEnrichmentActivities, createEnrichmentInferenceActivities } from '../activities/enrichment';
import { uploadStagingDir } from '../lib/storage/staging';
import { defaultVideoTools } from '../lib/media/video';
import { loadImageEncoderInThread } from '../lib/ml/encoderThread';
import { loadTextEncoder } from '../lib/ml/textEncoder';
import { DEFAULT_OBJECT_MODEL, loadObjectDetector } from '../lib/ml/objectDetector';
import { loadClip } from '../lib/ml/clip';
import { lazy } from '../lib/lazy';
import { createVisionCaptioner } from '../lib/ml/visionCaptioner';
import { createObjectStore } from '../lib/storage/createObjectStore';
import { createVectorStore } from '../lib/vectors/createVectorStore';
import { databaseFailureInterceptors } from './dataFailures';
import { createVectorPointRows } from '../db/repositories/vectorPoints';

async function connectWithRetry(address: string, logger: Logger, timeoutMs = 60_000): Promise<NativeConnection> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await NativeConnection.connect({ address });
    } catch (error) {
      if (Date.now() > deadline) throw error;
      logger.info({ address }, 'waiting for Temporal');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/** Starts the Temporal workers: workflows and I/O activities on one queue, inference on its own (WORKER_QUEUES: both, or one of them). */
export async function startWorkers(config: Config, logger: Logger): Promise<{ stop(): Promise<void> }> {
  if (!config.database.url) throw new Error('DATABASE_URL is required to start the worker');
  if (!config.temporal.address) throw new Error('TEMPORAL_ADDRESS is required to start the worker');
  const connection = await connectWithRetry(config.temporal.address, logger);
  // The ingest decodes DECODE_CONCURRENCY images at once: libvips threads per image beyond the cores' share only
  // contend, and its operation cache only costs here (an image is decoded once). 0.6 CPU ms less per image.
  sharp.concurrency(Math.max(1, Math.floor(os.availableParallelism() / config.indexing.decodeConcurrency)));
  sharp.cache(false);
  await ensureSearchAttributes(connection, config.temporal.namespace);
  const db = createDb(config.database.url, config.database.poolMax, { ...config.database, queryTimeoutMs: undefined });
  const store = createObjectStore(config);
  const vectors = createVectorStore(config, createVectorPointRows(db), { objects: store, role: 'worker', logger });
  const encoder = await loadImageEncoderInThread(config.models.dir, config.models.imageModel, config.models.inferenceThreads);
  const textEncoder = await loadTextEncoder(config.models.dir, config.models.inferenceThreads);
  const detector = lazy(() => loadObjectDetector(config.models.dir, DEFAULT_OBJECT_MODEL, config.models.inferenceThreads));
  const clip = lazy(() => loadClip(config.models.dir, config.models.inferenceThreads));
  const visionCaptioner = config.enrichment.visionCaption && createVisionCaptioner(config.enrichment.visionCaption);
  const queues = taskQueues(config.temporal.taskQueue);
  // Postgres's refusals leave activities without their SQL, and those of data that cannot be stored are not retried.
  const common = { connection, namespace: config.temporal.namespace, shutdownGraceTime: '10s' as const, interceptors: { activity: [databaseFailureInterceptors] } };

  const serves = (queue: 'workflows' | 'inference') => config.workerQueues === 'all' || config.workerQueues === queue;

  const workflowWorker = serves('workflows') && await Worker.create({
    ...common,
    taskQueue: queues.workflows,
    ...(config.temporal.workflowBundle ? { workflowBundle: { codePath: config.temporal.workflowBundle } } : { workflowsPath: require.resolve('../workflows') }),
    activities: {
      ...createTaskActivities({ db }),
      ...createDatasetLifecycleActivities({ db, encoder }),
      ...createIngestActivities({
        db,
        store,
        video: defaultVideoTools(),
        frames: config.video,
        modelInput: encoder.input,
        chunks: { size: config.indexing.chunkSize, concurrency: config.indexing.chunkConcurrency },
        decodeConcurrency: config.indexing.decodeConcurrency,
      }),
      ...createAnalysisActivities({ db, vectors, store }),
      ...createKnnGraphActivities({ db, vectors, store, chunks: { size: config.indexing.analysisChunkSize, concurrency: config.indexing.chunkConcurrency } }),
      ...createIncrementalKnnActivities({
        db,
        vectors,
        chunks: { size: config.indexing.analysisChunkSize, concurrency: config.indexing.chunkConcurrency },
        maxShare: config.indexing.reindexIncrementalMaxShare,
      }),
      ...createMapLayoutActivities({ db, vectors }),
      ...createCustomMetadataActivities({ db, store }),
      ...createLabelPropagationActivities({ db, vectors }),
      ...createSelectionActivities({ db, vectors, chunks: { size: config.indexing.analysisChunkSize, concurrency: config.indexing.chunkConcurrency } }),
      ...createLabelQualityActivities({ db, vectors, chunks: { size: config.indexing.analysisChunkSize, concurrency: config.indexing.chunkConcurrency } }),
      ...createExportActivities({ db, store, stagingDir: uploadStagingDir(config) }),
      ...createBatchSourceActivities({
        db,
        store,
        stagingDir: uploadStagingDir(config),
        archives: config.archives,
        s3: config.s3,
        s3SourcePolicy: config.s3SourcePolicy,
      }),
      ...createViewMonitoringActivities({ db, vectors, textEncoder }),
      ...createVersionActivities({ db }),
      ...createSnapshotActivities({ db }),
      ...createEnrichmentActivities({ db }),
      ...createStorageCollectionActivities({ db, store, vectors, settings: config.storageRelease }),
    },
    maxConcurrentActivityTaskExecutions: Math.max(2, os.availableParallelism()),
  });
  // One inference activity more than the encoder has threads: while one writes its vectors or reads its next inputs,
  // every encoder thread still has another's batch to work on.
  const inferenceWorker = serves('inference') && await Worker.create({
    ...common,
    taskQueue: queues.inference,
    activities: {
      ...createEmbeddingActivities({ db, store, vectors, encoder, textEncoder }),
      ...createVisualSearchActivities({ db, store, encoder }),
      ...createEnrichmentInferenceActivities({ db, store, vectors, encoder, textEncoder, detector: detector.get, clip: clip.get, visionCaptioner }),
    },
    maxConcurrentActivityTaskExecutions: config.models.inferenceThreads + 1,
  });
  const workers = [workflowWorker, inferenceWorker].filter((worker) => worker !== false);
  const running = workers.map((worker) => worker.run());
  logger.info({ queues: workers.map((worker) => worker.options.taskQueue), model: encoder.modelId }, 'worker running');

  const stop = async () => {
    for (const worker of workers) worker.shutdown();
    await Promise.allSettled(running);
    await connection.close();
    await vectors.close();
    await encoder.close();
    await (await detector.ifLoaded())?.close();
    await (await clip.ifLoaded())?.close();
    await textEncoder.close();
    await db.destroy();
  };
  return { stop };
}

/** Routes the SDK's own logs (warnings and up) into our JSON log stream. */
export function installSdkLogger(logger: Logger): void {
  const method = (level: LogLevel) => level.toLowerCase() as 'trace' | 'debug' | 'info' | 'warn' | 'error';
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => logger[method(entry.level)]({ sdk: entry.meta }, entry.message)),
  });
}

if (require.main === module) {
  runMain('worker', async (config, logger) => {
    installSdkLogger(logger);
    return (await startWorkers(config, logger)).stop;
  });
}
