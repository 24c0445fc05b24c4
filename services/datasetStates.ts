import type { Db } from '../db/connection';
import { claimDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
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
