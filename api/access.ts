import type { Db } from '../db/connection';
import type { DatasetRole } from '../db/models';
import { getDatasetAccess, type DatasetRow } from '../db/queries/datasets';
import { datasetNotFound, HttpError } from './errors';

const ROLE_RANK: Record<DatasetRole, number> = { viewer: 0, editor: 1, owner: 2 };

/** The dataset if the user holds at least `minimum` on it; else 404 (unknown or invisible) or 403. */
export async function requireDataset(
  db: Db,
  datasetId: string,
  userId: string,
  minimum: DatasetRole = 'viewer',
): Promise<DatasetRow> {
  const access = await getDatasetAccess(db, datasetId, userId);
  if (access.kind === 'missing') throw datasetNotFound();
  if (access.kind === 'forbidden') throw new HttpError(403, 'You do not have permission to access this dataset');
  if (ROLE_RANK[access.role] < ROLE_RANK[minimum]) {
    throw new HttpError(403, `This operation needs ${minimum} access to the dataset; you have ${access.role}`);
  }
  return access.dataset;
}
