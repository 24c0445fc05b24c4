import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { creationPhaseQuery, inferenceQueueOf, type CreationPhase, type DatasetCreationInput } from '../../workflows/contracts';
import {
  analysisCalls,
  cancellationSeen,
  chunkFile,
  creationSteps,
  labelCheckCall,
  mapLayoutsRecorded,
  failsWith,
  heldUntilReleased,
  mockActivities,
  newTaskId,
  outcomeOf,
  runsUntilCancelled,
  workflowTestbed,
  type ActivityName,
  type Behaviour,
} from '../support/workflowTesting';

const steps = creationSteps;
/** Until the commit: a step before it fails or aborts the creation (what follows the commit never does). */
const committing = steps.slice(0, steps.indexOf('commitDatasetCreation') + 1);
const all: ActivityName[] = [...steps, 'endTaskUnfinished', 'layOutDueMap'];

const testbed = workflowTestbed();

function newInput(): DatasetCreationInput {
  return { taskId: newTaskId(), datasetId: newTaskId(), transactionId: 7, batchId: newTaskId() };
}

/** What recordMapLayoutTask answers: the MAP_LAYOUT task it recorded, of a due layout. */
function mapTaskInput(ref: unknown) {
  return { ...(ref as { taskId: string; datasetId: string; byTaskId: string }), versionId: 'version-1', layoutId: 'layout-1' };
}

function start(taskQueue: string, input: DatasetCreationInput) {
  return testbed.start('datasetCreationWorkflow', taskQueue, input.taskId, input);
}

describe('datasetCreationWorkflow', () => {
  it('begins, ingests and embeds (on the inference queue) chunk by chunk in a child, sweeps, analyzes, snapshots and commits, in that order', async () => {
    const input = newInput();
    const mocks = mockActivities(all);
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      expect(await outcomeOf(handle)).toEqual({ status: 'COMPLETED', failure: undefined });
      expect(await handle.query(creationPhaseQuery)).toBe('done');
      await mapLayoutsRecorded(mocks);
      const ref = { taskId: input.taskId, datasetId: input.datasetId };
      const chunk = { after: null, last: chunkFile(0), ordinal: 0 };
      const step = { ...ref, batchId: input.batchId, selection: { transactionId: input.transactionId }, chunk, chunks: 1 };
      expect(mocks.calls).toEqual([
        { name: 'beginDatasetCreation', input: ref, taskQueue },
        { name: 'planMediaChunks', input: { selection: { transactionId: input.transactionId }, after: null, chunksDone: 0 }, taskQueue },
        { name: 'ingestChunk', input: step, taskQueue },
        { name: 'embedChunk', input: step, taskQueue: inferenceQueueOf(taskQueue) },
        { name: 'embedDatasetMedia', input: ref, taskQueue: inferenceQueueOf(taskQueue) },
        ...analysisCalls(ref, taskQueue),
        labelCheckCall(ref, { transactionId: input.transactionId }, taskQueue),
        { name: 'takeCreationSnapshot', input: { datasetId: input.datasetId, snapshotId: expect.stringMatching(/^[0-9a-f-]{36}$/) }, taskQueue },
        { name: 'commitDatasetCreation', input: ref, taskQueue },
        { name: 'recordMapLayoutTask', input: { taskId: expect.stringMatching(/^[0-9a-f-]{36}$/), datasetId: input.datasetId, byTaskId: input.taskId }, taskQueue },
      ]);
    });
  });

  it('is READY before its map: the commit ends the creation, and the MAP_LAYOUT task it starts lays the map out after', async () => {
    const input = newInput();
    const layout = heldUntilReleased();
    let mapInput: ReturnType<typeof mapTaskInput> | undefined;
    const mocks = mockActivities(all, {
      recordMapLayoutTask: (ref) => (mapInput = mapTaskInput(ref)),
      layOutDueMap: layout.behaviour,
    });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await layout.started;
      // The creation has completed (the dataset committed READY) while the layout is still running.
      expect(await outcomeOf(handle)).toEqual({ status: 'COMPLETED', failure: undefined });
      const map = testbed.handle(mapInput!.taskId);
      expect((await map.describe()).status.name).toBe('RUNNING');
      layout.release();
      expect(await outcomeOf(map)).toEqual({ status: 'COMPLETED', failure: undefined });
    });
    expect(mocks.names().slice(-3)).toEqual(['commitDatasetCreation', 'recordMapLayoutTask', 'layOutDueMap']);
    expect(mocks.inputsOf('layOutDueMap')).toEqual([{ taskId: mapInput!.taskId, datasetId: input.datasetId, byTaskId: input.taskId, versionId: 'version-1', layoutId: 'layout-1' }]);
  });

  it('ends the map task FAILED when its layout fails, the creation still COMPLETED', async () => {
    const input = newInput();
    let mapTaskId = '';
    const mocks = mockActivities(all, {
      recordMapLayoutTask: (ref) => {
        const recorded = mapTaskInput(ref);
        mapTaskId = recorded.taskId;
        return recorded;
      },
      layOutDueMap: failsWith('no stored graph: bad input'),
    });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await start(taskQueue, input))).toEqual({ status: 'COMPLETED', failure: undefined });
      await mapLayoutsRecorded(mocks);
      expect((await outcomeOf(testbed.handle(mapTaskId))).status).toBe('FAILED');
    });
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([
      { taskType: 'MAP_LAYOUT', input: { taskId: mapTaskId, datasetId: input.datasetId, byTaskId: input.taskId }, aborted: false, message: 'no stored graph: bad input' },
    ]);
  });

  it.each<[ActivityName, CreationPhase]>([
    ['beginDatasetCreation', 'starting'],
    ['planMediaChunks', 'indexing'],
    ['ingestChunk', 'indexing'],
    ['embedChunk', 'indexing'],
    ['embedDatasetMedia', 'indexing'],
    ['planKnnChunks', 'analyzing'],
    ['searchKnnChunk', 'analyzing'],
    ['clusterStoredGraph', 'analyzing'],
    ['takeCreationSnapshot', 'snapshot'],
  ])('an abort while %s runs (phase %s) records the task as aborted and commits nothing', async (running, phase) => {
    const input = newInput();
    const blocked = runsUntilCancelled();
    const mocks = mockActivities(all, { [running]: blocked.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await blocked.started;
      expect(await handle.query(creationPhaseQuery)).toBe(phase);
      await handle.cancel();
      const outcome = await outcomeOf(handle);
      expect(outcome.status).toBe('CANCELLED');
      expect(outcome.failure).toBeInstanceOf(CancelledFailure);
    });
    expect(mocks.names()).toEqual([...steps.slice(0, steps.indexOf(running) + 1), 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'DATASET_CREATION', input, aborted: true, message: 'Aborted by user' }]);
  });

  it.each(committing)('a failure of %s fails the task with its message and the workflow with DatasetCreationFailed', async (failing) => {
    const input = newInput();
    const mocks = mockActivities(all, { [failing]: failsWith(`${failing} broke: disk full`) });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const outcome = await outcomeOf(await start(taskQueue, input));
      expect(outcome.status).toBe('FAILED');
      expect(outcome.failure).toBeInstanceOf(ApplicationFailure);
      expect(outcome.failure).toMatchObject({ type: 'DatasetCreationFailed', message: `${failing} broke: disk full`, nonRetryable: true });
    });
    expect(mocks.names()).toEqual([...steps.slice(0, steps.indexOf(failing) + 1), 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'DATASET_CREATION', input, aborted: false, message: `${failing} broke: disk full` }]);
  });

  it('reports the commit phase, and an abort then does not stop the commit', async () => {
    const input = newInput();
    const commit = heldUntilReleased();
    const mocks = mockActivities(all, { commitDatasetCreation: commit.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await commit.started;
      expect(await handle.query(creationPhaseQuery)).toBe('commit');
      await handle.cancel();
      await cancellationSeen(handle);
      commit.release();
      expect(await outcomeOf(handle)).toEqual({ status: 'COMPLETED', failure: undefined });
      expect(await handle.query(creationPhaseQuery)).toBe('done');
      await mapLayoutsRecorded(mocks);
    });
    expect(mocks.names()).toEqual(steps);
  });

  it('runs again under the same workflow id after a failed run (a retry)', async () => {
    const input = newInput();
    let ingestCalls = 0;
    const failOnce: Behaviour = (call) => {
      ingestCalls++;
      if (ingestCalls === 1) return failsWith('the upload store was unreachable')(call);
    };
    const mocks = mockActivities(all, { ingestChunk: failOnce });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const first = await start(taskQueue, input);
      expect((await outcomeOf(first)).status).toBe('FAILED');
      const retry = await start(taskQueue, input);
      expect(retry.workflowId).toBe(first.workflowId);
      expect(retry.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
      expect(await outcomeOf(retry)).toEqual({ status: 'COMPLETED', failure: undefined });
      await mapLayoutsRecorded(mocks);
    });
    expect(mocks.names()).toEqual(['beginDatasetCreation', 'planMediaChunks', 'ingestChunk', 'endTaskUnfinished', ...steps]);
    const [failed, retried] = mocks.inputsOf('ingestChunk');
    expect(retried).toEqual(failed);
  });
});
