import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { listDatasetsForUser, setDatasetName, type DatasetRow } from '../db/repositories/datasets';

/** The datasets the user can see, newest first. */
export function listDatasets(db: Db, user: User): Promise<DatasetRow[]> {
  return listDatasetsForUser(db, user.id);
}

/** The dataset under its new name; names need not be unique, as at creation. */
export async function renameDataset(db: Db, dataset: DatasetRow, name: string): Promise<DatasetRow> {
  await setDatasetName(db, dataset.id, name);
  dataset.display_name = name;
  return dataset;
}
