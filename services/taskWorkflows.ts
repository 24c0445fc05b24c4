import { randomUUID } from 'node:crypto';
import { WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import type { Db } from '../db/connection';
import type { TaskType } from '../db/models';
import { insertTask, updateTaskProgress } from '../db/repositories/tasks';
import { ensureSearchAttributes, SEARCH_ATTRIBUTES } from '../lib/temporal/searchAttributes';
import { announceBlobWriter } from '../db/repositories/blobWrites';
import { taskOf } from '../lib/tasks';
import { BLOB_STORING_TASK_TYPES } from './taskTypes';

export interface TaskDeps {
  db: Db;
  temporal: Client;
  /** The main task queue (TASK_QUEUE). */
  taskQueue: string;
}

export interface TaskStart {
  taskType: TaskType;
  datasetId: string;
  user: { id: string; email: string };
  statusMessage: string;
  /** Builds the workflow input from the new task id; it is stored so a retry replays it. */
  input: (taskId: string) => object;
}

const registered = new WeakMap<Client, Promise<void>>();

/** Search attributes must exist before a workflow carries them; registered once per client. */
function ensureRegistered(client: Client): Promise<void> {
  let done = registered.get(client);
  if (!done) {
    done = ensureSearchAttributes(client.connection, client.options.namespace);
    done.catch(() => registered.delete(client));
    registered.set(client, done);
  }
  return done;
}

/** Runs the workflow of an existing task row under the task id, tagged for the Temporal UI. */
export async function startTaskWorkflow(
  deps: TaskDeps,
  task: { taskId: string; taskType: TaskType; datasetId: string; createdByEmail: string; input: object },
): Promise<void> {
  await ensureRegistered(deps.temporal);
  await deps.temporal.workflow.start(taskOf(task.taskType).workflow, {
    taskQueue: deps.taskQueue,
    workflowId: task.taskId,
    args: [task.input],
    // A retry is a new run under the same id; only a closed run may be replaced.
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    typedSearchAttributes: [
      { key: SEARCH_ATTRIBUTES.datasetId, value: task.datasetId },
      { key: SEARCH_ATTRIBUTES.taskType, value: task.taskType },
      { key: SEARCH_ATTRIBUTES.createdBy, value: task.createdByEmail },
    ],
  });
}

/**
 * Records a task and starts its workflow. `claim` runs in the same transaction as the task insert
 * (the guarded dataset status change); if the workflow cannot be started, the task is marked FAILED
 * and `release` undoes the claim, so nothing is left in a transitional status.
 */
export async function createTask(
  deps: TaskDeps,
  start: TaskStart,
  claim: (trx: Db, taskId: string) => Promise<void>,
  release: (db: Db) => Promise<void>,
): Promise<string> {
  const taskId = randomUUID();
  let input: object = {};
  await deps.db.transaction(async (trx) => {
    if (BLOB_STORING_TASK_TYPES.includes(start.taskType)) await announceBlobWriter(trx);
    await claim(trx, taskId);
    // Built after the claim, so the input can carry what the claim saw (e.g. the status it left).
    input = start.input(taskId);
    await insertTask(trx, {
      taskId,
      datasetId: start.datasetId,
      taskType: start.taskType,
      createdBy: start.user.id,
      input,
      statusMessage: start.statusMessage,
    });
  });
  try {
    await startTaskWorkflow(deps, { taskId, taskType: start.taskType, datasetId: start.datasetId, createdByEmail: start.user.email, input });
  } catch (error) {
    const message = `Could not start the workflow: ${(error as Error).message}`;
    await updateTaskProgress(deps.db, taskId, { status: 'FAILED', errorMessage: message });
    await release(deps.db);
    throw error;
  }
  return taskId;
}
