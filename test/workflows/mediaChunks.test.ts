import { ActivityFailure, CancelledFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { inferenceQueueOf, type ChunkStep, type MediaChunksInput } from '../../workflows/contracts';
import { chunkFile, chunkPlans, failsWith, mockActivities, newTaskId, outcomeOf, runsUntilCancelled, workflowTestbed, type ActivityName } from '../support/workflowTesting';

const all: ActivityName[] = ['planMediaChunks', 'ingestChunk', 'embedChunk'];
const testbed = workflowTestbed();

function newInput(): MediaChunksInput {
  return { taskId: newTaskId(), datasetId: newTaskId(), batchId: newTaskId(), selection: { transactionId: 5 } };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mediaChunksWorkflow', () => {
  it('decodes then embeds every chunk once, at most `concurrency` at a time, a window per run, continuing as new in between', async () => {
    const input = newInput();
    let inFlight = 0;
    let mostInFlight = 0;
    const mocks = mockActivities(all, {
      planMediaChunks: chunkPlans(5, 2, 2),
      ingestChunk: async () => {
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        await pause(100);
      },
      embedChunk: () => {
        inFlight--;
      },
    });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await testbed.start('mediaChunksWorkflow', taskQueue, input.taskId, input);
      expect(await outcomeOf(handle)).toEqual({ status: 'COMPLETED', failure: undefined });
      // Three windows (2 + 2 + 1 chunks): the last run is not the first.
      expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
      expect(mocks.calls.filter((call) => call.name === 'embedChunk').every((call) => call.taskQueue === inferenceQueueOf(taskQueue))).toBe(true);
    });
    expect(mocks.inputsOf('planMediaChunks')).toEqual([
      { selection: input.selection, after: null, chunksDone: 0 },
      { selection: input.selection, after: chunkFile(1), chunksDone: 2 },
      { selection: input.selection, after: chunkFile(3), chunksDone: 4 },
    ]);
    const ordinals = (name: ActivityName) => (mocks.inputsOf(name) as ChunkStep[]).map((step) => step.chunk.ordinal).sort();
    expect(ordinals('ingestChunk')).toEqual([0, 1, 2, 3, 4]);
    expect(ordinals('embedChunk')).toEqual([0, 1, 2, 3, 4]);
    for (const step of mocks.inputsOf('embedChunk') as ChunkStep[]) {
      expect(step).toEqual({ ...input, chunk: { after: step.chunk.ordinal === 0 ? null : chunkFile(step.chunk.ordinal - 1), last: chunkFile(step.chunk.ordinal), ordinal: step.chunk.ordinal }, chunks: 5 });
      const decoded = mocks.calls.findIndex((call) => call.name === 'ingestChunk' && (call.input as ChunkStep).chunk.ordinal === step.chunk.ordinal);
      const embedded = mocks.calls.findIndex((call) => call.name === 'embedChunk' && (call.input as ChunkStep).chunk.ordinal === step.chunk.ordinal);
      expect(decoded).toBeLessThan(embedded);
    }
    expect(mostInFlight).toBe(2);
  });

  it('plans nothing more and does nothing for a selection without files', async () => {
    const input = newInput();
    const mocks = mockActivities(all, { planMediaChunks: chunkPlans(0) });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await testbed.start('mediaChunksWorkflow', taskQueue, input.taskId, input))).toEqual({ status: 'COMPLETED', failure: undefined });
    });
    expect(mocks.names()).toEqual(['planMediaChunks']);
  });

  it('fails with the failing chunk’s error, and starts no chunk after it', async () => {
    const input = newInput();
    const mocks = mockActivities(all, { planMediaChunks: chunkPlans(4, 4, 1), ingestChunk: failsWith('chunk 1 could not be read') });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const outcome = await outcomeOf(await testbed.start('mediaChunksWorkflow', taskQueue, input.taskId, input));
      expect(outcome.status).toBe('FAILED');
      expect(outcome.failure).toBeInstanceOf(ActivityFailure);
      expect((outcome.failure?.cause as Error | undefined)?.message).toBe('chunk 1 could not be read');
    });
    expect(mocks.names()).toEqual(['planMediaChunks', 'ingestChunk']);
  });

  it('an abort cancels the chunks in flight and starts no other', async () => {
    const input = newInput();
    const blocked = runsUntilCancelled();
    const mocks = mockActivities(all, { planMediaChunks: chunkPlans(6, 6, 2), ingestChunk: blocked.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await testbed.start('mediaChunksWorkflow', taskQueue, input.taskId, input);
      await blocked.started;
      await handle.cancel();
      const outcome = await outcomeOf(handle);
      expect(outcome.status).toBe('CANCELLED');
      expect(outcome.failure).toBeInstanceOf(CancelledFailure);
    });
    expect(mocks.names().filter((name) => name === 'ingestChunk').length).toBeLessThanOrEqual(2);
    expect(mocks.names()).not.toContain('embedChunk');
  });

  it('keeps every run’s history bounded: 130 chunks take three runs of at most 64 chunks, each under 1,000 events (about 500)', async () => {
    const input = newInput();
    const mocks = mockActivities(all, { planMediaChunks: chunkPlans(130, 64, 8) });
    const runs: number[] = [];
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await testbed.start('mediaChunksWorkflow', taskQueue, input.taskId, input);
      expect((await outcomeOf(handle)).status).toBe('COMPLETED');
      // Run after run, by the id each one continued as.
      for (let runId: string | undefined = handle.firstExecutionRunId; runId; ) {
        const events: temporal.api.history.v1.IHistoryEvent[] = (await handle.client.getHandle(input.taskId, runId).fetchHistory()).events ?? [];
        runs.push(events.length);
        runId = events[events.length - 1].workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      }
    });
    expect(runs).toHaveLength(3);
    for (const events of runs) expect(events).toBeLessThan(1000);
    expect(mocks.inputsOf('embedChunk')).toHaveLength(130);
  });
});
