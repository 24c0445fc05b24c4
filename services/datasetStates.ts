import type { Db } from '../db/connection';
import { claimDatasetStatus, lockDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import { canStart, claimTransition, statusRefusal, type DatasetOperation, type DatasetStatus } from '../lib/datasetStates';
import { conflict } from '../lib/errors';

/** Refuses with a conflict unless the state machine lets `operation` start from the dataset's status. */
export function requireStatusFor(dataset: DatasetRow, operation: DatasetOperation): void {
  if (!canStart(operation, dataset.status_new)) throw conflict(statusRefusal(dataset.id, operation, dataset.status_new));
}

/** Claims the dataset for `operation` in one guarded update; returns the status it was claimed from, or refuses with a conflict. */
export async function claimDatasetFor(trx: Db, dataset: DatasetRow, operation: DatasetOperation): Promise<DatasetStatus> {
  const claim = await claimDatasetStatus(trx, dataset.id, claimTransition(operation));
  const previous = claim.previous ?? dataset.status_new;
  if (!claim.claimed) throw conflict(statusRefusal(dataset.id, operation, previous));
  return previous;
}

/**
 * For a write made at once (no task): holds the dataset's status in the caller's transaction and refuses with a
 * conflict unless `operation` may run in it, so no claim (a restore, an import) can start under the write.
 */
export async function lockDatasetFor(trx: Db, dataset: DatasetRow, operation: DatasetOperation): Promise<void> {
  const status = (await lockDatasetStatus(trx, dataset.id)) ?? dataset.status_new;
  if (!canStart(operation, status)) throw conflict(statusRefusal(dataset.id, operation, status));
}
