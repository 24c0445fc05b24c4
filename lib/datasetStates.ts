/**
 * The one state machine of datasets and tasks: which operation may start from which dataset status
 * and what status it claims, every status change the workflows make, and which task types can be
 * aborted or retried. Pure data and functions; docs/states.md is its readable copy.
 */

import { ACTIVE_TASK_STATUSES, type DatasetStatus, type TaskStatus, type Transition } from './datasetTransitions';
import { TASKS, TASK_TYPES, taskOf, taskTypesWhere, type TaskOperationName, type TaskType } from './tasks';

export {
  ACTIVE_TASK_STATUSES,
  batchFailedEmpty,
  cloneCommitted,
  DATASET_STATUSES,
  FINAL_TASK_STATUSES,
  restoreCommitted,
  TASK_STATUSES,
  TRANSITIONS,
  type DatasetStatus,
  type DatasetTransition,
  type SnapshotStatus,
  type TaskStatus,
} from './datasetTransitions';
export { TASK_TYPES, type TaskType } from './tasks';

/** The task types the spec lists, which `/tasks` shows unless asked for EXPORT (the spec follows exports through export_status). */
export const LISTED_TASK_TYPES: readonly TaskType[] = taskTypesWhere('listed');

/** What a caller can start on a dataset (reads included, so one table answers every "may I now?"): the task modules' operations and these. */
export type DatasetOperation =
  | TaskOperationName
  | 'upload_files'
  | 'edit_labels'
  | 'curate'
  | 'snapshot'
  | 'review_duplicates'
  | 'delete'
  | 'search'
  | 'visual_search';

interface OperationRule {
  /** Statuses the operation may start from. */
  from: readonly DatasetStatus[];
  /** The status the request claims in one guarded update, if any; the task's workflow moves on from there. */
  claims?: DatasetStatus;
  /** The task it starts, if any. */
  task?: TaskType;
}

/** Searches read a dataset while media are added (READ ONLY) and before its reindex (PARTIAL INDEX). */
const SEARCHABLE: readonly DatasetStatus[] = ['READY', 'READ ONLY', 'PARTIAL INDEX'];

/** The operations that start no task; a task's operation is in its module (lib/tasks). */
const OWN_OPERATIONS: Record<Exclude<DatasetOperation, TaskOperationName>, OperationRule> = {
  upload_files: { from: ['UPLOADING'] },
  // Writes the user's labels at once, in a transaction that holds the dataset's status (lockDatasetFor).
  edit_labels: { from: ['READY', 'PARTIAL INDEX'] },
  // Tags, saved views and the name, written at once: not while a task holds the dataset (a restore would drop them).
  curate: { from: ['UPLOADING', 'READY', 'PARTIAL INDEX', 'ERROR'] },
  snapshot: { from: ['READY', 'PARTIAL INDEX'] },
  // Decides duplicate groups (and merges into keepers) at once, in a transaction that holds the dataset's status (lockDatasetFor).
  review_duplicates: { from: ['READY', 'PARTIAL INDEX'] },
  // Not while a task claims the dataset (INDEXING, READ ONLY): deleting its data under it would fail it half-way.
  delete: { from: ['UPLOADING', 'READY', 'PARTIAL INDEX', 'ERROR'] },
  search: { from: SEARCHABLE },
  visual_search: { from: SEARCHABLE },
};

const TASK_OPERATIONS = Object.fromEntries(
  TASKS.map(({ operation, type }) => [operation.name, { from: operation.from, ...(operation.claims ? { claims: operation.claims } : {}), task: type }]),
) as Record<TaskOperationName, OperationRule>;

/** The order docs/states.md lists the operations in; an operation not named here comes last. */
const LISTING_ORDER: readonly DatasetOperation[] = [
  'upload_files', 'process_files', 'add_media', 'reindex', 'import_metadata', 'propagate_labels', 'check_labels', 'select_items', 'edit_labels', 'curate',
  'enrich', 'export', 'snapshot', 'review_duplicates', 'restore', 'clone', 'delete', 'search', 'visual_search',
];

function rank(operation: string): number {
  const at = LISTING_ORDER.indexOf(operation as DatasetOperation);
  return at === -1 ? LISTING_ORDER.length : at;
}

/** Every operation's rule: the task modules' and the others'. */
export const OPERATIONS = Object.fromEntries(
  Object.entries({ ...OWN_OPERATIONS, ...TASK_OPERATIONS }).sort(([a], [b]) => rank(a) - rank(b)),
) as Record<DatasetOperation, OperationRule>;

export function canStart(operation: DatasetOperation, status: DatasetStatus): boolean {
  return OPERATIONS[operation].from.includes(status);
}

/** The guarded update by which a request claims the dataset for `operation`. */
export function claimTransition(operation: DatasetOperation): Transition {
  const { from, claims } = OPERATIONS[operation];
  if (!claims) throw new Error(`${operation} claims no status`);
  return { from, to: claims };
}

/** Undoes a claim whose task could not be started: back to the status it was claimed from. */
export function releaseTransition(operation: DatasetOperation, previous: DatasetStatus): Transition {
  return { from: [claimTransition(operation).to], to: previous };
}

/** Task types that hold the dataset's add_media/reindex slot: at most one of them runs per dataset. */
export const BATCH_TASK_TYPES: readonly TaskType[] = taskTypesWhere('holdsBatchSlot');

interface TaskRule {
  /** Whether a user may abort it while INITIALIZING or RUNNING (never in its commit phase). */
  abortable: boolean;
  /** Whether a FAILED or ABORTED run may be started again with its stored input. */
  retryable: boolean;
}

/**
 * The spec lets users abort and retry dataset creation only; every other task ends by itself (a
 * failing one within the retry budget). Their workflows still end cleanly when cancelled from the
 * Temporal UI: an enrichment leaves its new dataset ERROR and the source its status back, an
 * export stores no archive. Each rule is its task module's (lib/tasks).
 */
export const TASK_RULES = Object.fromEntries(
  TASK_TYPES.map((type) => [type, { abortable: taskOf(type).abortable, retryable: taskOf(type).retryable }]),
) as Record<TaskType, TaskRule>;

function typesWhere(rule: keyof TaskRule): string {
  const types = TASK_TYPES.filter((type) => TASK_RULES[type][rule]);
  return types.length > 1 ? `${types.slice(0, -1).join(', ')} and ${types.at(-1)}` : types.join('');
}

/** Why a task cannot be aborted now, or undefined when it can. */
export function abortRefusal(task: { task_type: TaskType; status: TaskStatus; phase?: string | null }): string | undefined {
  if (!TASK_RULES[task.task_type].abortable) return `Only ${typesWhere('abortable')} tasks can be aborted (this is ${task.task_type})`;
  if (!ACTIVE_TASK_STATUSES.includes(task.status)) return `Task is ${task.status} and cannot be aborted`;
  if (task.phase === 'commit' || task.phase === 'done') return 'Task is in its commit phase and cannot be aborted';
  return undefined;
}

/** Why a task cannot be retried now, or undefined when it can. */
export function retryRefusal(task: { task_type: TaskType; status: TaskStatus }): string | undefined {
  if (!TASK_RULES[task.task_type].retryable) return `Only ${typesWhere('retryable')} tasks can be retried (this is ${task.task_type})`;
  if (task.status !== 'FAILED' && task.status !== 'ABORTED') return `Task is ${task.status}; only FAILED or ABORTED tasks can be retried`;
  return undefined;
}

/** The message of a refusal to start `operation` in `status`. */
export function statusRefusal(datasetId: string, operation: DatasetOperation, status: DatasetStatus): string {
  if (operation === 'add_media' || operation === 'reindex') {
    return `Dataset ${datasetId} is ${status}; ${operation} needs status ${OPERATIONS[operation].from.join(' or ')}`;
  }
  if (operation === 'upload_files' || operation === 'process_files') {
    return `Dataset ${datasetId} has already been processed; use add_media to add files`;
  }
  if (operation === 'snapshot' || operation === 'restore') {
    return `Dataset ${datasetId} is ${status}; ${operation === 'snapshot' ? 'a snapshot' : 'a restore'} needs status READY or PARTIAL INDEX`;
  }
  if (operation === 'delete') return `Dataset ${datasetId} is ${status}: a running task holds it; delete it once the task has ended`;
  if (operation === 'curate') return `Dataset ${datasetId} is ${status}: a running task holds it; change it once the task has ended`;
  return `Dataset is not READY (status ${status})`;
}
