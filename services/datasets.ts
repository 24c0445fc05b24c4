import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { listDatasetsForUser, type DatasetRow } from '../db/repositories/datasets';

/** The datasets the user can see, newest first. */
export function listDatasets(db: Db, user: User): Promise<DatasetRow[]> {
  return listDatasetsForUser(db, user.id);
}
