import { ApplicationFailure } from '@temporalio/common';
import type { SelectionInput } from '../../workflows/contracts';
import { failsWith, mockActivities, newTaskId, outcomeOf, workflowTestbed, type ActivityName, type Behaviour } from '../support/workflowTesting';

const all: ActivityName[] = ['planSelectionChunks', 'readSelectionChunk', 'chooseFromSelectionParts', 'clearSelectionParts', 'completeSelection', 'endTaskUnfinished'];
const result = { chosen: 6, pool: 14, leftOut: 2 };

const testbed = workflowTestbed();

function newInput(): SelectionInput {
  return {
    taskId: newTaskId(),
    datasetId: newTaskId(),
    weights: { typicality: 1 },
    count: 6,
    filters: [],
    tag: 'to label',
    seed: 3,
    balance: false,
    userId: newTaskId(),
    previousStatus: 'READY',
  };
}

/** What planSelectionChunks answers: `total` chunks of 5 items, `concurrency` in flight. */
const planOf =
  (total: number, concurrency: number): Behaviour =>
  () => ({ chunks: Array.from({ length: total }, (_, ordinal) => ({ ordinal, start: ordinal * 5, end: ordinal * 5 + 5 })), concurrency });

const ordinalOf = (input: unknown) => (input as { chunk: { ordinal: number } }).chunk.ordinal;

function start(taskQueue: string, input: SelectionInput) {
  return testbed.start('selectionWorkflow', taskQueue, input.taskId, input);
}

describe('selectionWorkflow', () => {
  it('reads the chunks of the pool in parallel, then chooses once from them all, forgets them and completes the task', async () => {
    const input = newInput();
    let reading = 0;
    let allReading!: () => void;
    const together = new Promise<void>((resolve) => (allReading = resolve));
    const mocks = mockActivities(all, {
      planSelectionChunks: planOf(3, 3),
      // Each chunk finishes only once all three run at once.
      readSelectionChunk: async () => {
        if (++reading === 3) allReading();
        await together;
      },
      chooseFromSelectionParts: () => result,
    });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await start(taskQueue, input))).toEqual({ status: 'COMPLETED', failure: undefined });
    });
    expect(mocks.names()).toEqual(['planSelectionChunks', 'readSelectionChunk', 'readSelectionChunk', 'readSelectionChunk', 'chooseFromSelectionParts', 'clearSelectionParts', 'completeSelection']);
    expect(mocks.inputsOf('readSelectionChunk').map(ordinalOf).sort()).toEqual([0, 1, 2]);
    expect(mocks.inputsOf('chooseFromSelectionParts')).toEqual([{ ...input, chunks: 3 }]);
    expect(mocks.inputsOf('clearSelectionParts')).toEqual([{ taskId: input.taskId, datasetId: input.datasetId }]);
    const release = { taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus, tag: input.tag, count: input.count };
    expect(mocks.inputsOf('completeSelection')).toEqual([{ ...release, ...result }]);
  });

  it('retries a failing chunk without reading the finished ones again', async () => {
    const input = newInput();
    let failed = false;
    const mocks = mockActivities(all, {
      planSelectionChunks: planOf(3, 1),
      readSelectionChunk: (step) => {
        if (ordinalOf(step) === 1 && !failed) {
          failed = true;
          throw ApplicationFailure.create({ message: 'the vector store went away', nonRetryable: false });
        }
      },
      chooseFromSelectionParts: () => result,
    });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await start(taskQueue, input))).toEqual({ status: 'COMPLETED', failure: undefined });
    });
    expect(mocks.inputsOf('readSelectionChunk').map(ordinalOf)).toEqual([0, 1, 1, 2]);
    expect(mocks.names().filter((name) => name === 'chooseFromSelectionParts')).toHaveLength(1);
  });

  it('a chunk that fails for good fails the task with its message, and the stored chunks are forgotten', async () => {
    const input = newInput();
    const mocks = mockActivities(all, { planSelectionChunks: planOf(2, 1), readSelectionChunk: failsWith('an item has no vector') });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const outcome = await outcomeOf(await start(taskQueue, input));
      expect(outcome.status).toBe('FAILED');
      expect(outcome.failure).toMatchObject({ type: 'SelectionFailed', message: 'an item has no vector' });
    });
    expect(mocks.names()).toEqual(['planSelectionChunks', 'readSelectionChunk', 'clearSelectionParts', 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'SELECTION', input, aborted: false, message: 'an item has no vector' }]);
  });
});
