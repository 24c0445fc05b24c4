import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** The identities (`pid@host`) of the workers polling `queue` for activities; `temporalService` is a Connection or a Client. */
export async function activityPollers(temporalService: { workflowService: Connection['workflowService'] }, namespace: string, queue: string): Promise<string[]> {
  const { pollers } = await temporalService.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: queue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  });
  return (pollers ?? []).map((poller) => poller.identity ?? '');
}
