import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { inferenceQueueOf, type CustomMetadataInput } from '../../workflows/contracts';
import {
  cancellationSeen,
  failsWith,
  labelCheckCall,
  heldUntilReleased,
  mockActivities,
  newTaskId,
  outcomeOf,
  runsUntilCancelled,
  workflowTestbed,
  type ActivityName,
  type Behaviour,
} from '../support/workflowTesting';

const steps: ActivityName[] = ['importCustomMetadata', 'embedCaptions', 'planLabelChunks', 'completeCustomMetadata'];
const all: ActivityName[] = [...steps, 'endTaskUnfinished'];
const imported = { applied: 4, unknown: ['missing.jpg'] };

const testbed = workflowTestbed();

function newInput(): CustomMetadataInput {
  return { taskId: newTaskId(), datasetId: newTaskId(), blobSha256: 'cd'.repeat(32), format: 'csv', previousStatus: 'PARTIAL INDEX' };
}

/** What the completing activity needs to give the dataset back its status. */
const releaseOf = (input: CustomMetadataInput) => ({ taskId: input.taskId, datasetId: input.datasetId, previousStatus: input.previousStatus });

function start(taskQueue: string, input: CustomMetadataInput) {
  return testbed.start('customMetadataWorkflow', taskQueue, input.taskId, input);
}

describe('customMetadataWorkflow', () => {
  it('imports the file, embeds the new captions on the inference queue, checks declared labels again and completes the task with the import result', async () => {
    const input = newInput();
    const mocks = mockActivities(all, { importCustomMetadata: () => imported });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await start(taskQueue, input))).toEqual({ status: 'COMPLETED', failure: undefined });
      expect(mocks.calls).toEqual([
        { name: 'importCustomMetadata', input, taskQueue },
        { name: 'embedCaptions', input: { datasetId: input.datasetId }, taskQueue: inferenceQueueOf(taskQueue) },
        labelCheckCall({ taskId: input.taskId, datasetId: input.datasetId }, { declared: true }, taskQueue),
        { name: 'completeCustomMetadata', input: { ...releaseOf(input), ...imported }, taskQueue },
      ]);
    });
  });

  it.each(steps.slice(0, -1))('an abort while %s runs records the task as aborted', async (running) => {
    const input = newInput();
    const blocked = runsUntilCancelled();
    const mocks = mockActivities(all, { importCustomMetadata: () => imported, [running]: blocked.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await blocked.started;
      await handle.cancel();
      const outcome = await outcomeOf(handle);
      expect(outcome.status).toBe('CANCELLED');
      expect(outcome.failure).toBeInstanceOf(CancelledFailure);
    });
    expect(mocks.names()).toEqual([...steps.slice(0, steps.indexOf(running) + 1), 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'CUSTOM_METADATA', input, aborted: true, message: 'Aborted by user' }]);
  });

  it('an abort once the task is being completed does not stop it', async () => {
    const input = newInput();
    const completion = heldUntilReleased();
    const mocks = mockActivities(all, { importCustomMetadata: () => imported, completeCustomMetadata: completion.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await completion.started;
      await handle.cancel();
      await cancellationSeen(handle);
      completion.release();
      expect(await outcomeOf(handle)).toEqual({ status: 'COMPLETED', failure: undefined });
    });
    expect(mocks.names()).toEqual(steps);
  });

  it.each(steps)('a failure of %s fails the task with its message and the workflow with CustomMetadataFailed', async (failing) => {
    const input = newInput();
    const message = `${failing} broke: column "caption" is not text`;
    const mocks = mockActivities(all, { importCustomMetadata: () => imported, [failing]: failsWith(message) });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const outcome = await outcomeOf(await start(taskQueue, input));
      expect(outcome.status).toBe('FAILED');
      expect(outcome.failure).toBeInstanceOf(ApplicationFailure);
      expect(outcome.failure).toMatchObject({ type: 'CustomMetadataFailed', message, nonRetryable: true });
    });
    expect(mocks.names()).toEqual([...steps.slice(0, steps.indexOf(failing) + 1), 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'CUSTOM_METADATA', input, aborted: false, message }]);
  });

  it('runs again under the same workflow id after a failed run (a retry)', async () => {
    const input = newInput();
    let importCalls = 0;
    const failOnce: Behaviour = (call) => {
      importCalls++;
      return importCalls === 1 ? failsWith('the metadata file is not valid CSV')(call) : imported;
    };
    const mocks = mockActivities(all, { importCustomMetadata: failOnce });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const first = await start(taskQueue, input);
      expect((await outcomeOf(first)).status).toBe('FAILED');
      const retry = await start(taskQueue, input);
      expect(retry.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
      expect((await outcomeOf(retry)).status).toBe('COMPLETED');
    });
    expect(mocks.names()).toEqual(['importCustomMetadata', 'endTaskUnfinished', ...steps]);
    expect(mocks.inputsOf('importCustomMetadata')).toEqual([input, input]);
  });
});
