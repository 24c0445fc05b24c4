import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { User } from '../db/models';
import { transitionDatasetStatus } from '../db/repositories/datasets';
import { announceBlobWriter } from '../db/repositories/blobWrites';
import {
  findTaskForUser,
  listTasks,
  taskFilterOptions,
  transitionTaskStatus,
  type TaskFilters,
  type TaskRow,
} from '../db/repositories/tasks';
import { conflict, invalid, notFound } from '../lib/errors';
import {
  abortRefusal,
  ACTIVE_TASK_STATUSES,
  FINAL_TASK_STATUSES,
  retryRefusal,
} from '../lib/datasetStates';
import { taskOf } from '../lib/tasks';
import { creationPhaseQuery, type CreationPhase } from '../workflows/contracts';
import { requireDataset } from './datasetAccess';
import { BLOB_STORING_TASK_TYPES, endUnfinishedTask, type Ending } from './taskTypes';
import { startTaskWorkflow, type TaskDeps } from './taskWorkflows';

const { WorkflowExecutionStatus } = temporal.api.enums.v1;

export { TASK_SORT_KEYS } from '../db/repositories/tasks';

export async function requireTask(deps: TaskDeps, taskId: string, user: User): Promise<TaskRow> {
  const task = await findTaskForUser(deps.db, taskId, user.id);
  if (!task) throw notFound('Task not found');
  return task;
}

/** How long a task row may wait for its workflow to be started before a missing workflow counts as lost. */
const WORKFLOW_START_GRACE_MS = 60_000;

/**
 * How long a read waits for Temporal to say whether a running task's workflow is still open. A
 * repair is best effort: while Temporal is down or slow, rows are answered as stored and a later
 * read repairs them.
 */
const REPAIR_WAIT_MS = 2000;

/** How long a retry waits for the previous run, which recorded its end just before closing, to close. */
const PREVIOUS_RUN_CLOSE_WAIT_MS = 5000;

/** How long an abort waits for the workflow to act on it before it answers by itself. */
const ABORT_WAIT_MS = 10_000;
/** How long an abort waits for the workflow to say its phase (no worker may be there to answer). */
const PHASE_QUERY_WAIT_MS = 3000;

/**
 * Temporal is the source of truth for execution: a task row that says it is running while its
 * workflow has closed (worker lost, terminated in the Temporal UI) is repaired to FAILED or ABORTED,
 * or to COMPLETED when the workflow completed.
 */
export async function repairTask(
  deps: TaskDeps,
  task: Pick<TaskRow, 'task_id' | 'task_type' | 'status' | 'dataset_id' | 'error_message' | 'updated_at'> & { input?: TaskRow['input'] },
): Promise<boolean> {
  if (FINAL_TASK_STATUSES.includes(task.status)) return false;
  let status: number | null | undefined;
  try {
    const handle = deps.temporal.workflow.getHandle(task.task_id);
    const description = await deps.temporal.connection.withDeadline(Date.now() + REPAIR_WAIT_MS, () => handle.describe());
    status = description.raw.workflowExecutionInfo?.status;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) return false;
  }
  const closedAs: Record<number, { to: 'FAILED' | 'ABORTED'; message: string }> = {
    [WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED]: { to: 'FAILED', message: 'The workflow failed' },
    [WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED]: { to: 'FAILED', message: 'The workflow was terminated' },
    [WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT]: { to: 'FAILED', message: 'The workflow timed out' },
    [WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED]: { to: 'ABORTED', message: 'The workflow was cancelled' },
  };
  // Not found at all: the workflow was never started or its history is gone — unless the request
  // that wrote the row is still starting it, so a fresh row is left alone.
  if (status === undefined && Date.now() - new Date(task.updated_at).getTime() < WORKFLOW_START_GRACE_MS) return false;
  // A workflow completes only once its last activity recorded the task COMPLETED with the datasets' end, in one
  // transaction: a row still active was written over afterwards, so only the row is put back.
  if (status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED) return markCompletedAgain(deps.db, task.task_id);
  const verdict = status === undefined ? { to: 'FAILED' as const, message: 'The workflow no longer exists' } : closedAs[status ?? -1];
  if (!verdict) return false;
  return endRunningTask(deps.db, task, { aborted: verdict.to === 'ABORTED', message: task.error_message ?? verdict.message });
}

/** A task whose workflow COMPLETED while its row reads INITIALIZING or RUNNING: the row COMPLETED, as the workflow's end wrote it. */
function markCompletedAgain(db: TaskDeps['db'], taskId: string): Promise<boolean> {
  return transitionTaskStatus(db, taskId, ACTIVE_TASK_STATUSES, 'COMPLETED', {
    statusMessage: 'Completed (its workflow completed; this row was read back from it)',
    progressPercentage: 100,
    phase: 'done',
    errorMessage: null,
  });
}

/**
 * Ends a task that still reads INITIALIZING or RUNNING (FAILED, or ABORTED) and leaves its datasets
 * where its own failure path would; false when it had ended already.
 */
async function endRunningTask(
  db: TaskDeps['db'],
  task: Pick<TaskRow, 'task_id' | 'task_type'> & { input?: TaskRow['input'] },
  ending: Ending,
): Promise<boolean> {
  const ended = await transitionTaskStatus(db, task.task_id, ACTIVE_TASK_STATUSES, ending.aborted ? 'ABORTED' : 'FAILED', { errorMessage: ending.message });
  if (ended && task.input) await endUnfinishedTask(db, task.task_type, task.input as never, ending);
  return ended;
}

/** A page of the user's tasks, each repaired from Temporal first; a dataset_id filter must name a dataset they can read (404/403). */
export async function listTasksRepaired(deps: TaskDeps, user: User, options: Parameters<typeof listTasks>[2]) {
  if (options.filters.datasetId) await requireDataset(deps.db, options.filters.datasetId, user.id);
  let result = await listTasks(deps.db, user.id, options);
  const repairs = await Promise.all(result.rows.map((task) => repairTask(deps, task)));
  if (repairs.some(Boolean)) result = await listTasks(deps.db, user.id, options);
  return result;
}

/** One task the user may see (404 otherwise), repaired from Temporal first as a listed one is. */
export async function findTaskRepaired(deps: TaskDeps, taskId: string, user: User): Promise<TaskRow> {
  const task = await requireTask(deps, taskId, user);
  return (await repairTask(deps, task)) ? requireTask(deps, taskId, user) : task;
}

/** The dataset names and ids, task types and creators the user's tasks (started in the range) have. */
export function listTaskFilterOptions(deps: TaskDeps, user: User, range: Pick<TaskFilters, 'startTimeFrom' | 'startTimeTo'>) {
  return taskFilterOptions(deps.db, user.id, range);
}

async function currentPhase(deps: TaskDeps, taskId: string): Promise<CreationPhase | undefined> {
  try {
    const handle = deps.temporal.workflow.getHandle(taskId);
    return await deps.temporal.connection.withDeadline(Date.now() + PHASE_QUERY_WAIT_MS, () => handle.query(creationPhaseQuery));
  } catch {
    return undefined;
  }
}

/** A task the user may abort or retry: visible to them, and they hold manage_tasks on its dataset. */
async function requireManagedTask(deps: TaskDeps, taskId: string, user: User): Promise<TaskRow> {
  const task = await requireTask(deps, taskId, user);
  await requireDataset(deps.db, task.dataset_id, user.id, 'manage_tasks');
  return task;
}

/** Cancels a running task the state machine lets users abort, unless it is committing; the workflow records ABORTED. */
export async function abortTask(deps: TaskDeps, taskId: string, user: User): Promise<TaskRow> {
  const task = await requireManagedTask(deps, taskId, user);
  const refusal = abortRefusal(task) ?? abortRefusal({ ...task, phase: await currentPhase(deps, taskId) });
  if (refusal) throw conflict(refusal);

  const handle = deps.temporal.workflow.getHandle(taskId);
  await deps.temporal.connection.withDeadline(Date.now() + ABORT_WAIT_MS, () => handle.cancel());
  const closed = await deps.temporal.connection.withDeadline(Date.now() + ABORT_WAIT_MS, () => handle.result()).then(
    () => true,
    (error) => error instanceof WorkflowFailedError,
  );
  if (!closed) {
    // No worker acted on the cancellation in time (stopped, frozen or overloaded): the task ends here,
    // as its workflow would end it; the workflow, when a worker takes it again, finds it cancelled.
    await endRunningTask(deps.db, task, { aborted: true, message: 'Aborted by user (its workflow stops when a worker takes it again)' });
  }
  const after = await requireTask(deps, taskId, user);
  if (after.status === 'COMPLETED') throw conflict('Task reached its commit phase and completed');
  return after;
}

/** Starts a FAILED or ABORTED retryable task again under the same id with its stored input. */
export async function retryTask(deps: TaskDeps, taskId: string, user: User): Promise<TaskRow> {
  const task = await requireManagedTask(deps, taskId, user);
  const refusal = retryRefusal(task);
  if (refusal) throw invalid(refusal);
  // retryRefusal lets through only the types whose module has a retry rule.
  const retry = taskOf(task.task_type).retry!;
  // The run records FAILED/ABORTED just before it closes; wait for the close so the id can be reused.
  const previousRun = deps.temporal.workflow.getHandle(taskId);
  await deps.temporal.connection.withDeadline(Date.now() + PREVIOUS_RUN_CLOSE_WAIT_MS, () => previousRun.result()).catch(() => undefined);
  const claimed = await deps.db.transaction(async (trx) => {
    if (BLOB_STORING_TASK_TYPES.includes(task.task_type)) await announceBlobWriter(trx);
    const moved = await transitionTaskStatus(trx, taskId, ['FAILED', 'ABORTED'], 'INITIALIZING', {
      statusMessage: 'Retrying',
      errorMessage: null,
      progressPercentage: 0,
      phase: null,
    });
    if (!moved) return undefined;
    await transitionDatasetStatus(trx, task.dataset_id, retry.restarts, { progress: 0, error_message: null });
    // The answer is the task as retried (INITIALIZING), read before its workflow starts and may move it on.
    return findTaskForUser(trx, taskId, user.id);
  });
  if (!claimed) throw invalid('Task is no longer FAILED or ABORTED');
  try {
    await startTaskWorkflow(deps, {
      taskId,
      taskType: task.task_type,
      datasetId: task.dataset_id,
      createdByEmail: task.created_by_email,
      input: task.input,
    });
  } catch (error) {
    await transitionTaskStatus(deps.db, taskId, ['INITIALIZING'], task.status, { errorMessage: `Retry could not start: ${(error as Error).message}` });
    await transitionDatasetStatus(deps.db, task.dataset_id, retry.notStarted);
    throw error;
  }
  return claimed;
}
