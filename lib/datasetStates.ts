/**
 * The one state machine of datasets and tasks: which operation may start from which dataset status
 * and what status it claims, every status change the workflows make, and which task types can be
 * aborted or retried. Pure data and functions; docs/states.md is its readable copy.
 */

export const DATASET_STATUSES = ['UPLOADING', 'INDEXING', 'READY', 'READ ONLY', 'PARTIAL INDEX', 'ERROR'] as const;
export type DatasetStatus = (typeof DATASET_STATUSES)[number];

export const TASK_TYPES = [
  'DATASET_CREATION',
  'MEDIA_ADDITION',
  'REINDEX',
  'ENRICHMENT',
  'CUSTOM_METADATA',
  'SNAPSHOT_RESTORE',
  'SNAPSHOT_CLONE',
  'LABEL_PROPAGATION',
  'LABEL_QUALITY',
  'EXPORT',
] as const;
export type TaskType = (typeof TASK_TYPES)[number];
/** The task types the spec lists, which `/tasks` shows unless asked for EXPORT (the spec follows exports through export_status). */
export const LISTED_TASK_TYPES: readonly TaskType[] = TASK_TYPES.filter((type) => type !== 'EXPORT');

export const TASK_STATUSES = ['INITIALIZING', 'RUNNING', 'COMPLETED', 'FAILED', 'ABORTED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const ACTIVE_TASK_STATUSES: readonly TaskStatus[] = ['INITIALIZING', 'RUNNING'];
export const FINAL_TASK_STATUSES: readonly TaskStatus[] = ['COMPLETED', 'FAILED', 'ABORTED'];

/** What a caller can start on a dataset (reads included, so one table answers every "may I now?"). */
export type DatasetOperation =
  | 'upload_files'
  | 'process_files'
  | 'add_media'
  | 'reindex'
  | 'import_metadata'
  | 'propagate_labels'
  | 'edit_labels'
  | 'curate'
  | 'check_labels'
  | 'enrich'
  | 'export'
  | 'snapshot'
  | 'review_duplicates'
  | 'restore'
  | 'clone'
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

export const OPERATIONS: Record<DatasetOperation, OperationRule> = {
  upload_files: { from: ['UPLOADING'] },
  process_files: { from: ['UPLOADING'], claims: 'INDEXING', task: 'DATASET_CREATION' },
  add_media: { from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY', task: 'MEDIA_ADDITION' },
  reindex: { from: ['PARTIAL INDEX'], claims: 'READ ONLY', task: 'REINDEX' },
  import_metadata: { from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY', task: 'CUSTOM_METADATA' },
  propagate_labels: { from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY', task: 'LABEL_PROPAGATION' },
  check_labels: { from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY', task: 'LABEL_QUALITY' },
  // Writes the user's labels at once, in a transaction that holds the dataset's status (lockDatasetFor).
  edit_labels: { from: ['READY', 'PARTIAL INDEX'] },
  // Tags, saved views and the name, written at once: not while a task holds the dataset (a restore would drop them).
  curate: { from: ['UPLOADING', 'READY', 'PARTIAL INDEX', 'ERROR'] },
  enrich: { from: ['READY'], claims: 'READ ONLY', task: 'ENRICHMENT' },
  // An export claims nothing: it reads the version as it was when requested (docs/decisions.md).
  export: { from: ['READY'], task: 'EXPORT' },
  snapshot: { from: ['READY', 'PARTIAL INDEX'] },
  // Decides duplicate groups (and merges into keepers) at once, in a transaction that holds the dataset's status (lockDatasetFor).
  review_duplicates: { from: ['READY', 'PARTIAL INDEX'] },
  restore: { from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY', task: 'SNAPSHOT_RESTORE' },
  // A clone reads a frozen snapshot: the source's status does not matter (its task runs on the new dataset).
  clone: { from: DATASET_STATUSES, task: 'SNAPSHOT_CLONE' },
  // Not while a task claims the dataset (INDEXING, READ ONLY): deleting its data under it would fail it half-way.
  delete: { from: ['UPLOADING', 'READY', 'PARTIAL INDEX', 'ERROR'] },
  search: { from: SEARCHABLE },
  visual_search: { from: SEARCHABLE },
};

export function canStart(operation: DatasetOperation, status: DatasetStatus): boolean {
  return OPERATIONS[operation].from.includes(status);
}

type Transition = { from: readonly DatasetStatus[]; to: DatasetStatus };

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
export const BATCH_TASK_TYPES: readonly TaskType[] = ['MEDIA_ADDITION', 'REINDEX'];

/** Status changes made by workflows (and by the read repair of a lost workflow), by event. */
export const TRANSITIONS = {
  creationStarted: { from: ['INDEXING', 'ERROR'], to: 'INDEXING' },
  creationRetried: { from: ['ERROR', 'INDEXING', 'UPLOADING'], to: 'INDEXING' },
  creationRetryNotStarted: { from: ['INDEXING'], to: 'ERROR' },
  creationCommitted: { from: ['INDEXING'], to: 'READY' },
  creationFailed: { from: ['INDEXING', 'UPLOADING'], to: 'ERROR' },
  /** A batch is processed and visible; the next reindex re-clusters it. */
  batchCompleted: { from: ['READ ONLY'], to: 'PARTIAL INDEX' },
  /** A batch or reindex failed after something arrived: the next reindex indexes it. */
  batchFailedWithMedia: { from: ['READ ONLY', 'INDEXING'], to: 'PARTIAL INDEX' },
  reindexStarted: { from: ['READ ONLY'], to: 'INDEXING' },
  reindexCommitted: { from: ['INDEXING'], to: 'READY' },
  /** A clone is made as a new dataset that is INDEXING until its copy is done. */
  cloneFailed: { from: ['INDEXING'], to: 'ERROR' },
  /** An enriched copy is a new dataset, INDEXING until the models have run over it. */
  enrichmentCommitted: { from: ['INDEXING'], to: 'READY' },
  enrichmentFailed: { from: ['INDEXING'], to: 'ERROR' },
} as const satisfies Record<string, Transition>;

export type DatasetTransition = keyof typeof TRANSITIONS;

/**
 * Where a batch that failed with nothing received goes: back to the status its request claimed
 * from (READY or PARTIAL INDEX).
 */
export function batchFailedEmpty(previous: DatasetStatus): Transition {
  return { from: ['READ ONLY', 'INDEXING'], to: previous };
}

/** Snapshots are taken of stable datasets; a restore or a clone ends in the status the snapshot was taken in. */
export type SnapshotStatus = Extract<DatasetStatus, 'READY' | 'PARTIAL INDEX'>;

export function restoreCommitted(snapshotStatus: SnapshotStatus): Transition {
  return { from: ['READ ONLY'], to: snapshotStatus };
}

export function cloneCommitted(snapshotStatus: SnapshotStatus): Transition {
  return { from: ['INDEXING'], to: snapshotStatus };
}

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
 * export stores no archive.
 */
export const TASK_RULES: Record<TaskType, TaskRule> = {
  DATASET_CREATION: { abortable: true, retryable: true },
  MEDIA_ADDITION: { abortable: false, retryable: false },
  REINDEX: { abortable: false, retryable: false },
  ENRICHMENT: { abortable: false, retryable: false },
  CUSTOM_METADATA: { abortable: false, retryable: false },
  SNAPSHOT_RESTORE: { abortable: false, retryable: false },
  SNAPSHOT_CLONE: { abortable: false, retryable: false },
  LABEL_PROPAGATION: { abortable: false, retryable: false },
  LABEL_QUALITY: { abortable: false, retryable: false },
  EXPORT: { abortable: false, retryable: false },
};

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
