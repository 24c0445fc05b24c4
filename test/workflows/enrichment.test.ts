import { ApplicationFailure } from '@temporalio/common';
import { inferenceQueueOf, type EnrichmentInput } from '../../workflows/contracts';
import { CancelledFailure } from '@temporalio/common';
import { cancellationSeen, chunkFile, failsWith, heldUntilReleased, mockActivities, newTaskId, outcomeOf, runsUntilCancelled, workflowTestbed, type ActivityName } from '../support/workflowTesting';

const steps: ActivityName[] = [
  'beginEnrichment',
  'copyDatasetVersion',
  'adoptEnrichedCopy',
  'planMediaChunks',
  'enrichChunk',
  'enrichDatasetMedia',
  'embedCaptions',
  'commitEnrichment',
];
const all: ActivityName[] = [...steps, 'endTaskUnfinished'];

const testbed = workflowTestbed();

function newInput(): EnrichmentInput {
  return {
    taskId: newTaskId(),
    datasetId: newTaskId(),
    sourceDatasetId: newTaskId(),
    sourceVersionId: newTaskId(),
    versionId: newTaskId(),
    enrichmentModels: { IMAGE_TAGGING: 'imagenet-tagger@1' },
    sourcePreviousStatus: 'READY',
  };
}

function start(taskQueue: string, input: EnrichmentInput) {
  return testbed.start('enrichmentWorkflow', taskQueue, input.taskId, input);
}

describe('enrichmentWorkflow', () => {
  it('copies the source into the new dataset, runs the models chunk by chunk on the inference queue, clusters objects, embeds the captions, then commits', async () => {
    const input = newInput();
    const mocks = mockActivities(all);
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await start(taskQueue, input))).toEqual({ status: 'COMPLETED', failure: undefined });
      const ref = { taskId: input.taskId, datasetId: input.datasetId };
      const selection = { mediaOf: input.datasetId };
      expect(mocks.calls).toEqual([
        { name: 'beginEnrichment', input, taskQueue },
        {
          name: 'copyDatasetVersion',
          input: { sourceVersionId: input.sourceVersionId, targetDatasetId: input.datasetId, versionId: input.versionId },
          taskQueue,
        },
        { name: 'adoptEnrichedCopy', input, taskQueue },
        { name: 'planMediaChunks', input: { selection, after: null, chunksDone: 0 }, taskQueue },
        { name: 'enrichChunk', input: { ...ref, batchId: input.taskId, selection, chunk: { after: null, last: chunkFile(0), ordinal: 0 }, chunks: 1 }, taskQueue: inferenceQueueOf(taskQueue) },
        { name: 'enrichDatasetMedia', input: ref, taskQueue: inferenceQueueOf(taskQueue) },
        { name: 'embedCaptions', input: ref, taskQueue: inferenceQueueOf(taskQueue) },
        { name: 'commitEnrichment', input, taskQueue },
      ]);
    });
  });

  it.each(steps.slice(0, -1))('an abort while %s runs ends the task as aborted and gives the source its status back', async (running) => {
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
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'ENRICHMENT', input, aborted: true, message: 'Aborted by user' }]);
  });

  it('an abort once commitEnrichment has started does not stop it', async () => {
    const input = newInput();
    const held = heldUntilReleased();
    const mocks = mockActivities(all, { commitEnrichment: held.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await held.started;
      await handle.cancel();
      await cancellationSeen(handle);
      held.release();
      expect(await outcomeOf(handle)).toEqual({ status: 'COMPLETED', failure: undefined });
    });
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([]);
  });

  it.each(steps)('a failure of %s fails the task, gives the source its status back and fails the workflow with EnrichmentFailed', async (failing) => {
    const input = newInput();
    const message = `${failing} broke: disk full`;
    const mocks = mockActivities(all, { [failing]: failsWith(message) });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const outcome = await outcomeOf(await start(taskQueue, input));
      expect(outcome.status).toBe('FAILED');
      expect(outcome.failure).toBeInstanceOf(ApplicationFailure);
      expect(outcome.failure).toMatchObject({ type: 'EnrichmentFailed', message, nonRetryable: true });
    });
    expect(mocks.names()).toEqual([...steps.slice(0, steps.indexOf(failing) + 1), 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'ENRICHMENT', input, aborted: false, message }]);
  });
});
