import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { inferenceQueueOf, type ReindexInput } from '../../workflows/contracts';
import {
  REANALYSIS_STEPS,
  reanalysisCalls,
  cancellationSeen,
  chunkFile,
  failsWith,
  labelCheckCall,
  mapLayoutsRecorded,
  heldUntilReleased,
  mockActivities,
  newTaskId,
  outcomeOf,
  runsUntilCancelled,
  workflowTestbed,
  type ActivityName,
  type Behaviour,
} from '../support/workflowTesting';

const steps: ActivityName[] = ['beginReindex', 'planMediaChunks', 'ingestChunk', 'embedChunk', 'embedDatasetMedia', ...REANALYSIS_STEPS, 'planLabelChunks', 'commitReindex'];
const all: ActivityName[] = [...steps, 'endTaskUnfinished', 'recordMapLayoutTask'];

const testbed = workflowTestbed();

function newInput(): ReindexInput {
  return { taskId: newTaskId(), datasetId: newTaskId() };
}

function start(taskQueue: string, input: ReindexInput) {
  return testbed.start('reindexWorkflow', taskQueue, input.taskId, input);
}

/** What the end activity gets for a reindex (its module makes the task its own batch, the dataset going back to PARTIAL INDEX). */
function failure(input: ReindexInput, aborted: boolean, message: string) {
  return { taskType: 'REINDEX', input, aborted, message };
}

describe('reindexWorkflow', () => {
  it('begins, ingests and embeds (on the inference queue) the pending uploads chunk by chunk, re-clusters, checks declared labels again and commits, in that order', async () => {
    const input = newInput();
    const mocks = mockActivities(all);
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await start(taskQueue, input))).toEqual({ status: 'COMPLETED', failure: undefined });
      await mapLayoutsRecorded(mocks);
      const selection = { pendingOf: input.datasetId };
      const step = { ...input, batchId: input.taskId, selection, chunk: { after: null, last: chunkFile(0), ordinal: 0 }, chunks: 1 };
      expect(mocks.calls).toEqual([
        { name: 'beginReindex', input, taskQueue },
        { name: 'planMediaChunks', input: { selection, after: null, chunksDone: 0 }, taskQueue },
        { name: 'ingestChunk', input: step, taskQueue },
        { name: 'embedChunk', input: step, taskQueue: inferenceQueueOf(taskQueue) },
        { name: 'embedDatasetMedia', input, taskQueue: inferenceQueueOf(taskQueue) },
        ...reanalysisCalls({ taskId: input.taskId, datasetId: input.datasetId }, taskQueue),
        labelCheckCall(input, { declared: true }, taskQueue),
        { name: 'commitReindex', input, taskQueue },
        // Then the map, laid out by a MAP_LAYOUT task of its own when the analysis left it due.
        { name: 'recordMapLayoutTask', input: { taskId: expect.stringMatching(/^[0-9a-f-]{36}$/), datasetId: input.datasetId, byTaskId: input.taskId }, taskQueue },
      ]);
    });
  });

  it.each(steps.slice(0, -1))('an abort while %s runs sets the dataset back and commits nothing', async (running) => {
    const input = newInput();
    const blocked = runsUntilCancelled();
    const mocks = mockActivities(all, { [running]: blocked.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await blocked.started;
      await handle.cancel();
      const outcome = await outcomeOf(handle);
      expect(outcome.status).toBe('CANCELLED');
      expect(outcome.failure).toBeInstanceOf(CancelledFailure);
    });
    expect(mocks.names()).toEqual([...steps.slice(0, steps.indexOf(running) + 1), 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([failure(input, true, 'Aborted by user')]);
  });

  it('an abort once the commit has started does not stop it', async () => {
    const input = newInput();
    const commit = heldUntilReleased();
    const mocks = mockActivities(all, { commitReindex: commit.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await commit.started;
      await handle.cancel();
      await cancellationSeen(handle);
      commit.release();
      expect(await outcomeOf(handle)).toEqual({ status: 'COMPLETED', failure: undefined });
      await mapLayoutsRecorded(mocks);
    });
    expect(mocks.names()).toEqual([...steps, 'recordMapLayoutTask']);
  });

  it.each(steps)('a failure of %s fails the task with its message and the workflow with ReindexFailed', async (failing) => {
    const input = newInput();
    const message = `${failing} broke: out of memory`;
    const mocks = mockActivities(all, { [failing]: failsWith(message) });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const outcome = await outcomeOf(await start(taskQueue, input));
      expect(outcome.status).toBe('FAILED');
      expect(outcome.failure).toBeInstanceOf(ApplicationFailure);
      expect(outcome.failure).toMatchObject({ type: 'ReindexFailed', message, nonRetryable: true });
    });
    expect(mocks.names()).toEqual([...steps.slice(0, steps.indexOf(failing) + 1), 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([failure(input, false, message)]);
  });

  it('runs again under the same workflow id after a failed run (a retry)', async () => {
    const input = newInput();
    let analyzeCalls = 0;
    const failOnce: Behaviour = (call) => {
      analyzeCalls++;
      if (analyzeCalls === 1) return failsWith('the vector store was unreachable')(call);
    };
    const mocks = mockActivities(all, { clusterStoredGraph: failOnce });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const first = await start(taskQueue, input);
      expect((await outcomeOf(first)).status).toBe('FAILED');
      const retry = await start(taskQueue, input);
      expect(retry.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
      expect((await outcomeOf(retry)).status).toBe('COMPLETED');
      await mapLayoutsRecorded(mocks);
    });
    expect(mocks.names()).toEqual([...steps.slice(0, steps.indexOf('clusterStoredGraph') + 1), 'endTaskUnfinished', ...steps, 'recordMapLayoutTask']);
  });

  it('extends the stored graph when planIncrementalKnn allows: searches only the new media chunk by chunk, merges them, re-clusters the merged graph writing only what changed', async () => {
    const input = newInput();
    const ref = { taskId: input.taskId, datasetId: input.datasetId };
    const chunks = [{ ordinal: 0, start: 0, end: 2 }, { ordinal: 1, start: 2, end: 3 }];
    const plan = { kind: 'incremental', versionId: 'version-1', collection: 'dataset_1', analysisId: 'analysis-2', baseChunks: 4, chunks, concurrency: 2 };
    const step = { ...ref, versionId: 'version-1', collection: 'dataset_1', analysisId: 'analysis-2', baseChunks: 4, chunks: 2 };
    const merged = { ...ref, versionId: 'version-1', collection: 'dataset_1', chunks: 7 };
    const mocks = mockActivities([...all, 'searchNewKnnChunk', 'mergeNewNeighbours', 'reclusterStoredGraph'], { planIncrementalKnn: () => plan, mergeNewNeighbours: () => ({ ...merged, changed: 3 }) });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect((await outcomeOf(await start(taskQueue, input))).status).toBe('COMPLETED');
      await mapLayoutsRecorded(mocks);
    });
    expect(mocks.names()).not.toContain('planKnnChunks');
    expect(mocks.names()).not.toContain('searchKnnChunk');
    expect(mocks.inputsOf('searchNewKnnChunk')).toEqual(chunks.map((chunk) => ({ ...step, chunk })));
    expect(mocks.inputsOf('mergeNewNeighbours')).toEqual([step]);
    expect(mocks.inputsOf('reclusterStoredGraph')).toEqual([merged]);
    expect(mocks.names()).not.toContain('clusterStoredGraph');
    expect(mocks.names().slice(-5)).toEqual(['mergeNewNeighbours', 'reclusterStoredGraph', 'planLabelChunks', 'commitReindex', 'recordMapLayoutTask']);
  });
});
