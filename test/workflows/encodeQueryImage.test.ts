import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { inferenceQueueOf, type QueryImage } from '../../workflows/contracts';
import {
  failsWith,
  mockActivities,
  newTaskId,
  outcomeOf,
  runsUntilCancelled,
  workflowTestbed,
  type Behaviour,
} from '../support/workflowTesting';

const testbed = workflowTestbed();

function newQuery(): QueryImage {
  return { anchorId: newTaskId(), datasetId: newTaskId(), blobSha256: 'ef'.repeat(32), boundingBox: { x: 1, y: 2, width: 30, height: 40 }, createdBy: newTaskId() };
}

function start(taskQueue: string, query: QueryImage) {
  return testbed.start('encodeQueryImageWorkflow', taskQueue, query.anchorId, query);
}

describe('encodeQueryImageWorkflow', () => {
  it('encodes the query image on the inference queue, never on the API side', async () => {
    const query = newQuery();
    const mocks = mockActivities(['encodeQueryImage']);
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await start(taskQueue, query))).toEqual({ status: 'COMPLETED', failure: undefined });
      expect(mocks.calls).toEqual([{ name: 'encodeQueryImage', input: query, taskQueue: inferenceQueueOf(taskQueue) }]);
    });
  });

  it('tries a transient encoder failure again', async () => {
    const query = newQuery();
    let calls = 0;
    const failsOnce: Behaviour = () => {
      calls++;
      if (calls === 1) throw new Error('the model session was busy');
    };
    const mocks = mockActivities(['encodeQueryImage'], { encodeQueryImage: failsOnce });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect((await outcomeOf(await start(taskQueue, query))).status).toBe('COMPLETED');
    });
    expect(mocks.inputsOf('encodeQueryImage')).toEqual([query, query]);
  });

  it('fails with the activity’s own error when the image cannot be encoded', async () => {
    const query = newQuery();
    const mocks = mockActivities(['encodeQueryImage'], { encodeQueryImage: failsWith('the bounding box lies outside the image') });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const outcome = await outcomeOf(await start(taskQueue, query));
      expect(outcome.status).toBe('FAILED');
      expect(outcome.failure).toBeInstanceOf(ActivityFailure);
      expect(outcome.failure?.cause).toBeInstanceOf(ApplicationFailure);
      expect(outcome.failure?.cause).toMatchObject({ message: 'the bounding box lies outside the image' });
    });
    expect(mocks.names()).toEqual(['encodeQueryImage']);
  });

  it('is cancelled while encoding when asked to', async () => {
    const query = newQuery();
    const blocked = runsUntilCancelled();
    const mocks = mockActivities(['encodeQueryImage'], { encodeQueryImage: blocked.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, query);
      await blocked.started;
      await handle.cancel();
      const outcome = await outcomeOf(handle);
      expect(outcome.status).toBe('CANCELLED');
      expect(outcome.failure).toBeInstanceOf(CancelledFailure);
    });
  });
});
