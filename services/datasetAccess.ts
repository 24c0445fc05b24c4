import type { Db } from '../db/connection';
import { getDatasetAccess, type DatasetRow } from '../db/repositories/datasets';
import { roleRefusal, type DatasetAction } from '../lib/accessPolicy';
import { datasetNotFound, forbidden } from '../lib/errors';

/**
 * The dataset if the user may do `action` on it (lib/accessPolicy.ts decides); else not found
 * (unknown, or invisible to the user) or forbidden.
 */
export async function requireDataset(db: Db, datasetId: string, userId: string, action: DatasetAction = 'read'): Promise<DatasetRow> {
  const access = await getDatasetAccess(db, datasetId, userId);
  if (access.kind === 'missing') throw datasetNotFound();
  if (access.kind === 'forbidden') throw forbidden('You do not have permission to access this dataset');
  const refusal = roleRefusal(access.role, action);
  if (refusal) throw forbidden(refusal);
  return access.dataset;
}

/** The dataset if the user may see it (any role), else undefined: for checks that must tell nothing of others' datasets. */
export async function visibleDataset(db: Db, datasetId: string, userId: string): Promise<DatasetRow | undefined> {
  const access = await getDatasetAccess(db, datasetId, userId);
  return access.kind === 'granted' ? access.dataset : undefined;
}
