import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { createDataset, transitionDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import {
  countUploadedFiles,
  findUploadTransaction,
  labelFilesByFolder,
  openUploadTransaction,
  recordedFileNames,
  recordUploadsWhile,
  reopenTransaction,
  setUploadedFileLabels,
  startProcessingTransaction,
  transactionFolders,
  type UploadTransaction,
} from '../db/repositories/ingestion';
import { primaryWorkspaceRole } from '../db/repositories/users';
import { forbidden, invalid, notFound } from '../lib/errors';
import { canStart, claimTransition, releaseTransition, statusRefusal } from '../lib/datasetStates';
import { mediaKindOf } from '../lib/media/mediaTypes';
import type { ObjectStore } from '../lib/storage/objectStore';
import type { StagedFile } from '../lib/storage/staging';
import { DEFAULT_LABEL_FIELD } from '../lib/media/folderLabel';
import { createTask, type TaskDeps } from './taskWorkflows';
import { resolveUploadLabels, type LabelsRequest } from './uploadLabels';
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
  files: Array<StagedFile & { fileName: string; folder?: string | null; label?: string | null; split?: string | null }>,
): Promise<void> {
  const recorded = await storeBlobs({ db, store }, files, () =>
    recordUploadsWhile(
      db,
      transaction,
      files.map((file) => ({
        fileName: file.fileName,
        mediaKind: mediaKindOf(file.fileName)!,
        sha256: file.sha256,
        size: file.size,
        folder: file.folder,
        label: file.label,
        split: file.split,
      })),
    ),
  );
  if (!recorded) throw invalid(`Transaction ${transaction.id} is already being processed; these files were not added`);
}

/** The files a creation's labels are matched against: every file for a label file, a file of each folder for folders. */
async function creationFiles(db: Db, transactionId: number, labels: LabelsRequest) {
  if (labels.from === 'folder') return transactionFolders(db, transactionId);
  return [...(await recordedFileNames(db, transactionId))].map((fileName) => ({ fileName }));
}

/**
 * Step 4: INDEXING and a DATASET_CREATION task whose workflow does the work. With `labels` (labels_from folder, csv
 * or coco), each file's label (and split) becomes the value of that custom-metadata field, the field is declared as
 * the label field (a split column as the split field), and the labels are checked at the end of indexing.
 */
export async function processFiles(deps: TaskDeps, dataset: DatasetRow, transaction: UploadTransaction, user: User, labels: LabelsRequest | null = null): Promise<string> {
  requireUploading(dataset, 'process_files');
  if ((await countUploadedFiles(deps.db, transaction.id)) === 0) {
    throw invalid(`Transaction ${transaction.id} has no uploaded files`);
  }
  const target = { versionId: null, labelField: labels?.field ?? DEFAULT_LABEL_FIELD, splitField: null };
  const resolved = labels && (await resolveUploadLabels(deps.db, labels, await creationFiles(deps.db, transaction.id, labels), target));
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
      if (!(await startProcessingTransaction(trx, transaction.id, resolved?.transaction))) throw invalid(`Transaction ${transaction.id} is already being processed`);
      if (resolved?.transaction.labelsFrom === 'folder') await labelFilesByFolder(trx, transaction.id);
      else await setUploadedFileLabels(trx, transaction.id, resolved?.files ?? []);
    },
    async (db) => {
      await transitionDatasetStatus(db, dataset.id, releaseTransition('process_files', 'UPLOADING'));
      await reopenTransaction(db, transaction.id);
    },
  );
}
