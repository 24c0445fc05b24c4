/**
 * The statuses of datasets and tasks and the status changes the workflows make: the part of the state machine
 * (lib/datasetStates.ts) that the task modules (lib/tasks) build on. Pure data and functions.
 */

export const DATASET_STATUSES = ['UPLOADING', 'INDEXING', 'READY', 'READ ONLY', 'PARTIAL INDEX', 'ERROR'] as const;
export type DatasetStatus = (typeof DATASET_STATUSES)[number];

export const TASK_STATUSES = ['INITIALIZING', 'RUNNING', 'COMPLETED', 'FAILED', 'ABORTED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const ACTIVE_TASK_STATUSES: readonly TaskStatus[] = ['INITIALIZING', 'RUNNING'];
export const FINAL_TASK_STATUSES: readonly TaskStatus[] = ['COMPLETED', 'FAILED', 'ABORTED'];

export type Transition = { from: readonly DatasetStatus[]; to: DatasetStatus };

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
