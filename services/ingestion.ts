import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { createDataset, transitionDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import {
  countFilesWithFolder,
  countUploadedFiles,
  findUploadTransaction,
  openUploadTransaction,
  recordUploadsWhile,
  reopenTransaction,
  startProcessingTransaction,
  type UploadTransaction,
} from '../db/repositories/ingestion';
import { primaryWorkspaceRole } from '../db/repositories/users';
import { forbidden, invalid, notFound } from '../lib/errors';
import { canStart, claimTransition, releaseTransition, statusRefusal } from '../lib/datasetStates';
import { mediaKindOf } from '../lib/media/mediaTypes';
import type { ObjectStore } from '../lib/storage/objectStore';
import type { StagedFile } from '../lib/storage/staging';
import { createTask, type TaskDeps } from './taskWorkflows';
import { storeBlobs } from './blobWrites';

/** The workspace a user's new datasets go to; making one needs the editor or admin role there. */
export async function requireCreatorWorkspace(db: Db, user: User): Promise<string> {
  const membership = await primaryWorkspaceRole(db, user.id);
  if (!membership || membership.role === 'viewer') {
    throw forbidden('Creating datasets needs the editor or admin role in the workspace');
  }
  return membership.workspaceId;
}

/** Step 1: an empty dataset waiting for uploads. */
export async function newDataset(db: Db, user: User, name: string): Promise<string> {
  const workspaceId = await requireCreatorWorkspace(db, user);
  const dataset = await createDataset(db, { name, ownerId: user.id, workspaceId, status: 'UPLOADING' });
  return dataset.id;
}

/** Uploads and processing happen once, before the first index; the spec's ingestion codes make this a 400. */
function requireUploading(dataset: DatasetRow, operation: 'upload_files' | 'process_files'): void {
  if (!canStart(operation, dataset.status_new)) throw invalid(statusRefusal(dataset.id, operation, dataset.status_new));
}

/** Step 2: a transaction collecting uploads until process_files. */
export async function openTransaction(db: Db, dataset: DatasetRow, user: User): Promise<number> {
  requireUploading(dataset, 'upload_files');
  return openUploadTransaction(db, dataset.id, user.id);
}

/** The transaction of this dataset, open for uploads; 404 when unknown, 400 when already processing. */
export async function requireOpenTransaction(db: Db, dataset: DatasetRow, transactionId: number): Promise<UploadTransaction> {
  const transaction = await findUploadTransaction(db, dataset.id, transactionId);
  if (!transaction) throw notFound(`Transaction ${transactionId} not found for dataset ${dataset.id}`);
  if (transaction.status !== 'OPEN') throw invalid(`Transaction ${transactionId} is already being processed`);
  return transaction;
}

/** Step 3: moves staged uploads into the content-addressed store and records them in the transaction. */
export async function storeUploads(
  db: Db,
  store: ObjectStore,
  transaction: UploadTransaction,
  files: Array<StagedFile & { fileName: string; folder?: string | null }>,
): Promise<void> {
  const recorded = await storeBlobs({ db, store }, files, () =>
    recordUploadsWhile(
      db,
      transaction,
      files.map((file) => ({ fileName: file.fileName, mediaKind: mediaKindOf(file.fileName)!, sha256: file.sha256, size: file.size, folder: file.folder })),
    ),
  );
  if (!recorded) throw invalid(`Transaction ${transaction.id} is already being processed; these files were not added`);
}

/**
 * Step 4: INDEXING and a DATASET_CREATION task whose workflow does the work. With `labelField`
 * (labels_from=folder), each file's folder becomes the value of that custom-metadata field, the
 * field is declared as the label field, and the labels are checked at the end of indexing.
 */
export async function processFiles(deps: TaskDeps, dataset: DatasetRow, transaction: UploadTransaction, user: User, labelField: string | null = null): Promise<string> {
  requireUploading(dataset, 'process_files');
  if ((await countUploadedFiles(deps.db, transaction.id)) === 0) {
    throw invalid(`Transaction ${transaction.id} has no uploaded files`);
  }
  if (labelField !== null && (await countFilesWithFolder(deps.db, transaction.id)) === 0) {
    throw invalid(`labels_from=folder: no file of transaction ${transaction.id} was sent with a folder in its name (such as cats/1.jpg)`);
  }
  return createTask(
    deps,
    {
      taskType: 'DATASET_CREATION',
      datasetId: dataset.id,
      user,
      statusMessage: 'Queued',
      input: (taskId) => ({ taskId, datasetId: dataset.id, transactionId: transaction.id, batchId: taskId }),
    },
    async (trx) => {
      const claimed = await transitionDatasetStatus(trx, dataset.id, claimTransition('process_files'), { progress: 0 });
      if (!claimed) throw invalid(statusRefusal(dataset.id, 'process_files', 'INDEXING'));
      if (!(await startProcessingTransaction(trx, transaction.id, labelField))) throw invalid(`Transaction ${transaction.id} is already being processed`);
    },
    async (db) => {
      await transitionDatasetStatus(db, dataset.id, releaseTransition('process_files', 'UPLOADING'));
      await reopenTransaction(db, transaction.id);
    },
  );
}
