import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError, WorkflowIdReusePolicy, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import type { createAnalysisActivities } from '../../activities/analysis';
import type { createBatchSourceActivities } from '../../activities/batchSources';
import type { createCustomMetadataActivities } from '../../activities/customMetadata';
import type { createDatasetLifecycleActivities } from '../../activities/datasetLifecycle';
import type { createEmbeddingActivities } from '../../activities/embedding';
import type { createEnrichmentActivities, createEnrichmentInferenceActivities } from '../../activities/enrichment';
import type { createExportActivities } from '../../activities/export';
import type { createIncrementalKnnActivities } from '../../activities/incrementalKnn';
import type { createIngestActivities } from '../../activities/ingest';
import type { createKnnGraphActivities } from '../../activities/knnGraph';
import type { createLabelQualityActivities } from '../../activities/labelQuality';
import type { createMapLayoutActivities } from '../../activities/mapLayout';
import type { createSelectionActivities } from '../../activities/selection';
import type { createSnapshotActivities } from '../../activities/snapshots';
import type { createStorageCollectionActivities } from '../../activities/storageCollection';
import type { createTaskActivities } from '../../activities/tasks';
import type { createVersionActivities } from '../../activities/versions';
import type { createViewMonitoringActivities } from '../../activities/viewMonitoring';
import type { createVisualSearchActivities } from '../../activities/visualSearch';
import { findTemporalBinary } from '../../lib/embedded/temporal';
import { inferenceQueueOf } from '../../workflows/contracts';
import { eventually } from './media';

/** Every activity a workflow may call, so a mock named after a renamed activity fails the typecheck. */
type Activities = ReturnType<typeof createAnalysisActivities> &
  ReturnType<typeof createBatchSourceActivities> &
  ReturnType<typeof createCustomMetadataActivities> &
  ReturnType<typeof createDatasetLifecycleActivities> &
  ReturnType<typeof createEmbeddingActivities> &
  ReturnType<typeof createEnrichmentActivities> &
  ReturnType<typeof createEnrichmentInferenceActivities> &
  ReturnType<typeof createExportActivities> &
  ReturnType<typeof createIncrementalKnnActivities> &
  ReturnType<typeof createIngestActivities> &
  ReturnType<typeof createKnnGraphActivities> &
  ReturnType<typeof createLabelQualityActivities> &
  ReturnType<typeof createMapLayoutActivities> &
  ReturnType<typeof createSelectionActivities> &
  ReturnType<typeof createSnapshotActivities> &
  ReturnType<typeof createStorageCollectionActivities> &
  ReturnType<typeof createTaskActivities> &
  ReturnType<typeof createVersionActivities> &
  ReturnType<typeof createViewMonitoringActivities> &
  ReturnType<typeof createVisualSearchActivities>;
export type ActivityName = keyof Activities & string;

/** What a mocked activity does when called: return a value, throw, or wait. */
export type Behaviour = (input: unknown) => unknown;

export interface ActivityCall {
  name: ActivityName;
  input: unknown;
  /** The queue the call arrived on, to tell the inference queue from the main one. */
  taskQueue: string;
}

export interface MockActivities {
  implementations: Record<string, (input: unknown) => Promise<unknown>>;
  calls: ActivityCall[];
  /** The names of the calls so far, in order. */
  names(): ActivityName[];
  /** The inputs `name` was called with, in order. */
  inputsOf(name: ActivityName): unknown[];
}

/** The activities of an analysis as fan-out (one neighbour-search chunk), in order. */
export const ANALYSIS_STEPS: ActivityName[] = ['planKnnChunks', 'searchKnnChunk', 'clusterStoredGraph'];

/** What planKnnChunks answers: `total` chunks of one item each, two in flight. */
export function knnPlan(total = 1): Behaviour {
  const chunks = Array.from({ length: total }, (_, ordinal) => ({ ordinal, start: ordinal, end: ordinal + 1 }));
  return () => ({ versionId: 'version-1', collection: 'dataset_1', analysisId: 'analysis-1', chunks, concurrency: 2 });
}

/** A reindex's analysis when planIncrementalKnn answers a full rebuild (the mocks' default): the full analysis after it. */
export const REANALYSIS_STEPS: ActivityName[] = ['planIncrementalKnn', ...ANALYSIS_STEPS];

/** The calls of a reindex's full analysis of `ref` (REANALYSIS_STEPS), on `taskQueue`. */
export function reanalysisCalls(ref: { taskId: string; datasetId: string }, taskQueue: string): ActivityCall[] {
  return [{ name: 'planIncrementalKnn', input: ref, taskQueue }, ...analysisCalls(ref, taskQueue)];
}

/** The label check's first call (a plan of null: no labels to check, as the mocks answer by default). */
export function labelCheckCall(ref: { taskId: string; datasetId: string }, fields: object, taskQueue: string): ActivityCall {
  return { name: 'planLabelChunks', input: { ...ref, fields, stage: 'analyze' }, taskQueue };
}

/** The calls of an analysis of `ref` as knnPlan(1) plans it, on `taskQueue`. */
export function analysisCalls(ref: { taskId: string; datasetId: string }, taskQueue: string): ActivityCall[] {
  const step = { ...ref, versionId: 'version-1', collection: 'dataset_1', chunks: 1 };
  return [
    { name: 'planKnnChunks', input: ref, taskQueue },
    { name: 'searchKnnChunk', input: { ...step, analysisId: 'analysis-1', chunk: { ordinal: 0, start: 0, end: 1 } }, taskQueue },
    { name: 'clusterStoredGraph', input: step, taskQueue },
  ];
}

/** The activities of a dataset creation that completes, in order (one chunk). */
export const creationSteps: ActivityName[] = [
  'beginDatasetCreation',
  'planMediaChunks',
  'ingestChunk',
  'embedChunk',
  'embedDatasetMedia',
  ...ANALYSIS_STEPS,
  'planLabelChunks',
  'takeCreationSnapshot',
  'commitDatasetCreation',
  'recordMapLayoutTask',
];

/**
 * Waits until the MAP_LAYOUT workflows that `commits` committed analyses started have recorded their tasks: each runs
 * on after the workflow that started it completed, so its first call may come after that workflow's end.
 */
export async function mapLayoutsRecorded(mocks: MockActivities, commits = 1): Promise<void> {
  await eventually(async () => mocks.inputsOf('recordMapLayoutTask').length, (n) => n >= commits, 20_000, 'the map layout recorded');
}

/** The file of chunk `ordinal` in the plans `chunkPlans` makes (one file per chunk). */
export const chunkFile = (ordinal: number): string => `file-${String(ordinal).padStart(4, '0')}`;

/** planMediaChunks over `total` one-file chunks, `window` per plan, `concurrency` in flight: what the ingest activity answers. */
export function chunkPlans(total: number, window = total, concurrency = 2): Behaviour {
  return (input) => {
    const { chunksDone } = input as { chunksDone: number };
    const ordinals = Array.from({ length: Math.max(0, Math.min(window, total - chunksDone)) }, (_, i) => chunksDone + i);
    const chunks = ordinals.map((ordinal) => ({ after: ordinal === 0 ? null : chunkFile(ordinal - 1), last: chunkFile(ordinal), ordinal }));
    return { chunks, remaining: total - chunksDone, concurrency };
  };
}

/**
 * Plain functions that record each call, then do what `behaviours` says (by default return undefined;
 * planMediaChunks and planKnnChunks plan one chunk, planLabelChunks finds no labels).
 */
export function mockActivities(names: ActivityName[], behaviours: Partial<Record<ActivityName, Behaviour>> = {}): MockActivities {
  behaviours = { planMediaChunks: chunkPlans(1), planKnnChunks: knnPlan(1), planIncrementalKnn: () => ({ kind: 'full', reason: 'mocked' }), planLabelChunks: () => null, ...behaviours };
  const calls: ActivityCall[] = [];
  const implementations = Object.fromEntries(
    names.map((name) => [
      name,
      async (input: unknown) => {
        calls.push({ name, input, taskQueue: Context.current().info.taskQueue });
        return behaviours[name]?.(input);
      },
    ]),
  );
  return {
    implementations,
    calls,
    names: () => calls.map((call) => call.name),
    inputsOf: (name) => calls.filter((call) => call.name === name).map((call) => call.input),
  };
}

/** A failure our activities raise for bad input: not retried, its message meant for the task. */
export function failsWith(message: string): Behaviour {
  return () => {
    throw ApplicationFailure.create({ type: 'MockActivityFailure', message, nonRetryable: true });
  };
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * An activity that tells the test it started, then runs until it is cancelled: the workflow's
 * cancellation scope moves on at once (TRY_CANCEL), and the worker's shutdown ends the attempt.
 */
export function runsUntilCancelled(): { behaviour: Behaviour; started: Promise<void> } {
  const started = deferred();
  return {
    started: started.promise,
    behaviour: async () => {
      started.resolve();
      await Context.current().cancelled;
    },
  };
}

/** An activity that tells the test it started and finishes only when the test releases it. */
export function heldUntilReleased(): { behaviour: Behaviour; started: Promise<void>; release(): void } {
  const started = deferred();
  const released = deferred();
  return {
    started: started.promise,
    release: () => released.resolve(),
    behaviour: async () => {
      started.resolve();
      await released.promise;
    },
  };
}

/**
 * The SDK logs every worker state change and every failure the tests provoke, and its core warns when
 * an activity the workflow already gave up on (an abort) completes at worker shutdown; tests only want errors.
 */
function quietTemporalLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  } catch {
    // already installed in this process
  }
}

/**
 * The Temporal server of a workflow test file: the one in TEMPORAL_ADDRESS when set (`npm test` sets
 * it for the integration tier), else a local dev server from the project's Temporal CLI, never a download.
 */
async function startWorkflowEnvironment(): Promise<TestWorkflowEnvironment> {
  quietTemporalLogs();
  const address = process.env.TEMPORAL_ADDRESS;
  if (address) return TestWorkflowEnvironment.createFromExistingServer({ address });
  return TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: findTemporalBinary(process.env.TEMPORAL_BIN) }, extraArgs: ['--log-level', 'error'] },
  });
}

/** The service's workflows: the run's bundle when `npm test` made one (WORKFLOW_BUNDLE), else bundled for this file. */
async function bundleWorkflows(): Promise<WorkflowBundleOption> {
  const codePath = process.env.WORKFLOW_BUNDLE;
  if (codePath) return { codePath };
  return bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
}

/** A unique workflow id, as the task id is in the service. */
export function newTaskId(): string {
  return randomUUID();
}

/** How a run ended: its status and, for a failed or cancelled run, the failure it ended with. */
export async function outcomeOf(handle: WorkflowHandle): Promise<{ status: string; failure?: Error }> {
  let failure: Error | undefined;
  try {
    await handle.result();
  } catch (error) {
    if (!(error instanceof WorkflowFailedError)) throw error;
    failure = error.cause;
  }
  return { status: (await handle.describe()).status.name, failure };
}

/** Waits (bounded) until the workflow has taken in a cancellation request in a completed workflow task. */
export async function cancellationSeen(handle: WorkflowHandle, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = (await handle.fetchHistory()).events ?? [];
    const requested = events.findIndex((event) => event.workflowExecutionCancelRequestedEventAttributes);
    if (requested !== -1 && events.slice(requested).some((event) => event.workflowTaskCompletedEventAttributes)) return;
    if (Date.now() > deadline) throw new Error(`the workflow did not take in the cancellation within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface WorkflowTestbed {
  /** Starts a run of `workflowType` under `workflowId`, answered by the mocks of the test running; a closed run's id may be reused, as a retry does. */
  start(workflowType: string, taskQueue: string, workflowId: string, input: unknown): Promise<WorkflowHandleWithFirstExecutionRunId>;
  /** Runs `test` with the file's workers answering the runs it starts (and their children) from `mocks`. */
  withMocks<R>(mocks: MockActivities, test: (taskQueue: string) => Promise<R>): Promise<R>;
  /** The run of `workflowId` (one a workflow started, say). */
  handle(workflowId: string): WorkflowHandle;
}

/** Every activity, so the file's workers can serve whichever a test mocks (the type checks the list is whole). */
const EVERY_ACTIVITY: Record<ActivityName, true> = {
  adoptEnrichedCopy: true, aggregateLabelQuality: true, beginDatasetCreation: true, beginEnrichment: true, beginReindex: true,
  beginSnapshotTask: true, beginTask: true, checkLabelChunk: true, checkLabelQuality: true, chooseFromSelectionParts: true,
  clearSelectionParts: true, clusterStoredGraph: true, collectBatchMedia: true, collectionSettings: true, commitClone: true,
  commitDatasetCreation: true, commitEnrichment: true, commitReindex: true, commitRestore: true, completeCustomMetadata: true,
  completeExport: true, completeLabelQuality: true, completeMediaAddition: true, completeSelection: true,
  copyDatasetVersion: true, embedCaptions: true, embedChunk: true, embedDatasetMedia: true, encodeQueryImage: true,
  endTaskUnfinished: true, enrichChunk: true, enrichDatasetMedia: true, evaluateViews: true, importCustomMetadata: true,
  indexBatch: true, ingestChunk: true, layOutDueMap: true, mergeNewNeighbours: true, packageExport: true,
  planIncrementalKnn: true, planKnnChunks: true, planLabelChunks: true, planMediaChunks: true, planSelectionChunks: true,
  purgeDeletedDatasets: true, purgeDeletedSnapshots: true, readSelectionChunk: true, recheckLabelQuality: true,
  reclusterStoredGraph: true, recordMapLayoutTask: true, releaseBlobs: true, releaseExpiredExportArchives: true,
  releaseExportArchives: true, releaseModelInputs: true, releaseVectorPoints: true, releaseVectorSpaces: true,
  searchKnnChunk: true, searchNewKnnChunk: true, selectItems: true, takeCreationSnapshot: true,
};

/**
 * The Temporal server, workflow bundle and workers of one test file: made before its tests, shut down after them.
 * One pair of workers serves every test of the file (making a worker loads the bundle: about a second each), on the
 * file's task queue and the inference queue beside it (where the inference activities are proxied to), so a call on
 * the wrong queue shows in `calls` instead of hanging. An activity is answered by the mocks of the test that started
 * its workflow's root run, so a run that outlives its test (a map layout, an attempt left running) never reaches the
 * next test's mocks.
 */
export function workflowTestbed(): WorkflowTestbed {
  const taskQueue = `workflow-test-${randomUUID()}`;
  let env: TestWorkflowEnvironment | undefined;
  let workers: Worker[] = [];
  let running: Promise<unknown> | undefined;
  let current: MockActivities | undefined;
  const mocksOfRoot = new Map<string, MockActivities>();

  async function mocksOf(workflowId: string): Promise<MockActivities> {
    const known = mocksOfRoot.get(workflowId);
    if (known) return known;
    const { rootExecution } = await env!.client.workflow.getHandle(workflowId).describe();
    const mocks = mocksOfRoot.get(rootExecution?.workflowId ?? '');
    if (!mocks) throw ApplicationFailure.create({ type: 'NotMocked', message: `run ${workflowId} was not started by a test`, nonRetryable: true });
    return mocks;
  }

  const dispatch = Object.fromEntries(
    Object.keys(EVERY_ACTIVITY).map((name) => [
      name,
      async (input: unknown) => {
        const implementation = (await mocksOf(Context.current().info.workflowExecution?.workflowId ?? '')).implementations[name];
        if (!implementation) throw ApplicationFailure.create({ type: 'NotMocked', message: `activity ${name} is not mocked`, nonRetryable: true });
        return implementation(input);
      },
    ]),
  );

  beforeAll(async () => {
    const [started, workflowBundle] = await Promise.all([startWorkflowEnvironment(), bundleWorkflows()]);
    env = started;
    const common = { connection: env.nativeConnection, namespace: env.namespace ?? 'default', activities: dispatch };
    workers = [await Worker.create({ ...common, taskQueue, workflowBundle }), await Worker.create({ ...common, taskQueue: inferenceQueueOf(taskQueue) })];
    running = Promise.all(workers.map((worker) => worker.run()));
  });
  afterAll(async () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
    await env?.teardown();
  });
  return {
    start: (workflowType, queue, workflowId, input) => {
      if (!current) throw new Error('start a run inside withMocks');
      mocksOfRoot.set(workflowId, current);
      return env!.client.workflow.start(workflowType, {
        taskQueue: queue,
        workflowId,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      });
    },
    withMocks: async (mocks, test) => {
      current = mocks;
      try {
        return await test(taskQueue);
      } finally {
        current = undefined;
      }
    },
    handle: (workflowId) => env!.client.workflow.getHandle(workflowId),
  };
}
