import type { Client } from '@temporalio/client';
import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { listDatasetsForUser, setDatasetName, type DatasetRow } from '../db/repositories/datasets';
import { markDatasetDeleted, runningTaskTypes } from '../db/repositories/storageRelease';
import { OPERATIONS } from '../lib/datasetStates';
import { conflict } from '../lib/errors';
import type { Logger } from '../lib/logger';
import { requireStatusFor } from './datasetStates';
import { requestStorageCollection } from './storageCollection';

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

/**
 * Deletes a dataset: it leaves every read at once, and the storage collector purges its rows and
 * releases what nothing else uses (clones keep what they share with it). Refused (409) while a task
 * holds it or reads it, naming the task.
 */
export async function deleteDataset(deps: { db: Db; temporal: Client; taskQueue: string; logger: Logger }, dataset: DatasetRow): Promise<void> {
  requireStatusFor(dataset, 'delete');
  if (!(await markDatasetDeleted(deps.db, dataset.id, OPERATIONS.delete.from))) {
    const running = await runningTaskTypes(deps.db, dataset.id);
    if (running.length > 0) {
      throw conflict(`Dataset ${dataset.id} cannot be deleted while a ${running.join(', ')} task using it runs; delete it once the task has ended`);
    }
    // Its status changed since it was read (a task claimed it): the refusal names the status it is in now.
    throw conflict(`Dataset ${dataset.id} changed while it was being deleted; try again`);
  }
  // The delete is done; a collector that cannot be reached now still runs at its next interval or API start.
  await requestStorageCollection(deps).catch((error: unknown) => deps.logger.warn({ err: error, datasetId: dataset.id }, 'storage collection not requested'));
}
