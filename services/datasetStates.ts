import type { DatasetRow } from '../db/queries/datasets';
import { HttpError } from '../api/errors';

/** Searches read a dataset while media are added (READ ONLY) and before its reindex (PARTIAL INDEX). */
const SEARCHABLE = ['READY', 'READ ONLY', 'PARTIAL INDEX'];

export function requireSearchable(dataset: DatasetRow): void {
  if (!SEARCHABLE.includes(dataset.status_new)) throw new HttpError(409, `Dataset is not READY (status ${dataset.status_new})`);
}
