import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export interface TemporalHealth {
  ok: boolean;
  error?: string;
  /** Pollers per task queue: 0 means no worker is serving that queue. */
  workers?: Record<string, number>;
}

/** Whether Temporal answers, and how many workers poll each of `queues`. */
export async function checkTemporal(connection: Connection, namespace: string, queues: string[]): Promise<TemporalHealth> {
  try {
    return await connection.withDeadline(Date.now() + 3000, () => describeQueues(connection, namespace, queues));
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

async function describeQueues(connection: Connection, namespace: string, queues: string[]): Promise<TemporalHealth> {
  await connection.workflowService.getSystemInfo({});
  const workers: Record<string, number> = {};
  for (const queue of queues) {
    const description = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: queue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
    workers[queue] = description.pollers?.length ?? 0;
  }
  return { ok: true, workers };
}
