import type { DatasetRow } from '../db/repositories/datasets';
import { canStart, statusRefusal, type DatasetOperation } from '../lib/datasetStates';
import { conflict } from '../lib/errors';

/** Refuses with a conflict unless the state machine lets `operation` start from the dataset's status. */
export function requireStatusFor(dataset: DatasetRow, operation: DatasetOperation): void {
  if (!canStart(operation, dataset.status_new)) throw conflict(statusRefusal(dataset.id, operation, dataset.status_new));
}
