import type { temporal } from '@temporalio/proto';
import type { DatasetCreationInput } from '../../workflows/contracts';
import { creationSteps, failsWith, mockActivities, newTaskId, outcomeOf, workflowTestbed, type ActivityName } from '../support/workflowTesting';

const all: ActivityName[] = [...creationSteps, 'endTaskUnfinished'];

const testbed = workflowTestbed();

function newInput(): DatasetCreationInput {
  return { taskId: newTaskId(), datasetId: newTaskId(), transactionId: 3, batchId: newTaskId() };
}

const seconds = (duration?: temporal.api.common.v1.IRetryPolicy['maximumInterval']) =>
  Number(duration?.seconds ?? 0) + (duration?.nanos ?? 0) / 1e9;

/** How long Temporal keeps retrying an activity that fails at once every time: the sum of the waits between its attempts. */
function retryWindowSeconds(policy: temporal.api.common.v1.IRetryPolicy): number {
  let total = 0;
  let interval = seconds(policy.initialInterval);
  for (let attempt = 1; attempt < (policy.maximumAttempts ?? 0); attempt++) {
    total += Math.min(interval, seconds(policy.maximumInterval));
    interval *= policy.backoffCoefficient ?? 2;
  }
  return total;
}

/**
 * The retry policy of every activity the run and its children (MEDIA_CHUNKS, and the MAP_LAYOUT it starts after its
 * commit, waited for: it runs on after the run) scheduled, by activity type, from their histories.
 */
async function scheduledPolicies(handle: Awaited<ReturnType<typeof testbed.start>>) {
  const parent = (await handle.fetchHistory()).events ?? [];
  const children = parent.flatMap((event) => event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ?? []);
  const events = [...parent];
  for (const id of children) {
    const child = handle.client.getHandle(id);
    await child.result();
    events.push(...((await child.fetchHistory()).events ?? []));
  }
  return events.flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    return scheduled ? [{ activity: scheduled.activityType?.name ?? '', policy: scheduled.retryPolicy ?? {} }] : [];
  });
}

describe('activity retry policies of a dataset creation', () => {
  it('every activity, the failure handler included, keeps retrying through an outage of more than 20 minutes, at most 30 s apart, and not forever', async () => {
    const completing = mockActivities(all);
    const failing = mockActivities(all, { clusterStoredGraph: failsWith('no clusters: bad input') });
    const scheduled: Awaited<ReturnType<typeof scheduledPolicies>> = [];
    for (const [mocks, status] of [[completing, 'COMPLETED'], [failing, 'FAILED']] as const) {
      await testbed.withMocks(mocks, async (taskQueue) => {
        const input = newInput();
        const handle = await testbed.start('datasetCreationWorkflow', taskQueue, input.taskId, input);
        expect((await outcomeOf(handle)).status).toBe(status);
        scheduled.push(...(await scheduledPolicies(handle)));
      });
    }
    expect(new Set(scheduled.map((entry) => entry.activity))).toEqual(new Set(all));
    for (const { activity, policy } of scheduled) {
      expect({ activity, maximumInterval: seconds(policy.maximumInterval) }).toEqual({ activity, maximumInterval: 30 });
      expect({ activity, bounded: (policy.maximumAttempts ?? 0) > 0 }).toEqual({ activity, bounded: true });
      expect({ activity, outlasts20Minutes: retryWindowSeconds(policy) > 20 * 60 }).toEqual({ activity, outlasts20Minutes: true });
    }
    // A validation failure is not retried: the failing activity ran once.
    expect(failing.inputsOf('clusterStoredGraph')).toHaveLength(1);
  });

  it('an activity failing as it does while Postgres is down is retried, and the creation completes once it is back', async () => {
    let calls = 0;
    const mocks = mockActivities(all, {
      ingestChunk: () => {
        calls++;
        if (calls <= 3) throw new Error('connect ECONNREFUSED 127.0.0.1:54320');
      },
    });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const input = newInput();
      expect(await outcomeOf(await testbed.start('datasetCreationWorkflow', taskQueue, input.taskId, input))).toEqual({
        status: 'COMPLETED',
        failure: undefined,
      });
    });
    expect(mocks.inputsOf('ingestChunk')).toHaveLength(4);
    expect(mocks.names()).not.toContain('endTaskUnfinished');
  });
});
