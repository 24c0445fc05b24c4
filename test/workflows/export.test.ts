import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ExportInput } from '../../workflows/contracts';
import {
  cancellationSeen,
  failsWith,
  heldUntilReleased,
  mockActivities,
  newTaskId,
  outcomeOf,
  runsUntilCancelled,
  workflowTestbed,
  type ActivityName,
} from '../support/workflowTesting';

const all: ActivityName[] = ['packageExport', 'completeExport', 'endTaskUnfinished'];
const packaged = { items: 12, bytes: 34_567 };

const testbed = workflowTestbed();

function newInput(): ExportInput {
  return {
    taskId: newTaskId(),
    datasetId: newTaskId(),
    datasetName: 'pets',
    versionId: newTaskId(),
    format: 'parquet',
    includeImages: true,
    fileName: 'pets.zip',
    selection: { mediaIds: [newTaskId()], clusters: [{ clusterId: newTaskId(), excludeMediaIds: [] }] },
  };
}

function start(taskQueue: string, input: ExportInput) {
  return testbed.start('exportWorkflow', taskQueue, input.taskId, input);
}

describe('exportWorkflow', () => {
  it('packages the archive with the whole input, then completes the task with what it holds', async () => {
    const input = newInput();
    const mocks = mockActivities(all, { packageExport: () => packaged });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await start(taskQueue, input))).toEqual({ status: 'COMPLETED', failure: undefined });
      expect(mocks.calls).toEqual([
        { name: 'packageExport', input, taskQueue },
        { name: 'completeExport', input: { taskId: input.taskId, fileName: 'pets.zip', ...packaged }, taskQueue },
      ]);
    });
  });

  it('an abort while packaging stops it and records the task as aborted', async () => {
    const input = newInput();
    const blocked = runsUntilCancelled();
    const mocks = mockActivities(all, { packageExport: blocked.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await blocked.started;
      await handle.cancel();
      const outcome = await outcomeOf(handle);
      expect(outcome.status).toBe('CANCELLED');
      expect(outcome.failure).toBeInstanceOf(CancelledFailure);
    });
    expect(mocks.names()).toEqual(['packageExport', 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'EXPORT', input, aborted: true, message: 'Aborted by user' }]);
  });

  it('an abort once the archive is stored does not undo the completion', async () => {
    const input = newInput();
    const completion = heldUntilReleased();
    const mocks = mockActivities(all, { packageExport: () => packaged, completeExport: completion.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await completion.started;
      await handle.cancel();
      await cancellationSeen(handle);
      completion.release();
      expect(await outcomeOf(handle)).toEqual({ status: 'COMPLETED', failure: undefined });
    });
    expect(mocks.names()).toEqual(['packageExport', 'completeExport']);
  });

  it('a packaging failure fails the task with its message and the workflow with ExportFailed', async () => {
    const input = newInput();
    const message = 'The file of chelsea.jpg (media 1) is missing from the object store';
    const mocks = mockActivities(all, { packageExport: failsWith(message) });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const outcome = await outcomeOf(await start(taskQueue, input));
      expect(outcome.status).toBe('FAILED');
      expect(outcome.failure).toBeInstanceOf(ApplicationFailure);
      expect(outcome.failure).toMatchObject({ type: 'ExportFailed', message, nonRetryable: true });
    });
    expect(mocks.names()).toEqual(['packageExport', 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'EXPORT', input, aborted: false, message }]);
  });

  it('retries a packaging attempt that failed for a passing reason, and completes', async () => {
    const input = newInput();
    let attempts = 0;
    const mocks = mockActivities(all, {
      packageExport: () => {
        attempts++;
        if (attempts === 1) throw new Error('connection reset while storing the archive');
        return packaged;
      },
    });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect((await outcomeOf(await start(taskQueue, input))).status).toBe('COMPLETED');
    });
    expect(mocks.names()).toEqual(['packageExport', 'packageExport', 'completeExport']);
  });
});
