import type { Db } from '../connection';
import type { MediaKind } from '../../lib/media/mediaTypes';
import type { FileLabel, LabelsFrom } from '../../lib/labels/labelFile';
import { inRange, planIdChunks, type IdRange } from './chunks';

export interface UploadTransaction {
  id: number;
  dataset_id: string;
  status: 'OPEN' | 'PROCESSING';
}

export interface UploadedFileRecord {
  fileName: string;
  mediaKind: MediaKind;
  sha256: string;
  size: number;
  /** The folder it was sent from (`cats` for `cats/1.jpg`); a label with labels_from=folder. */
  folder?: string | null;
  /** Its label and split from the request's labels (a folder, a CSV or COCO row), written into the transaction's fields. */
  label?: string | null;
  split?: string | null;
}

/** Where a transaction's labels come from and the custom-metadata fields its files' labels and splits go in. */
export interface TransactionLabels {
  labelsFrom: LabelsFrom;
  labelField: string;
  splitField: string | null;
}

/** A transaction collecting files: OPEN for creation uploads, PROCESSING at once for an add_media batch. */
export async function openUploadTransaction(
  db: Db,
  datasetId: string,
  userId: string,
  status: UploadTransaction['status'] = 'OPEN',
  labels: TransactionLabels | null = null,
): Promise<number> {
  const [row] = await db('upload_transactions').insert({ dataset_id: datasetId, created_by: userId, status, ...labelColumns(labels) }).returning('id');
  return Number(row.id);
}

export async function findUploadTransaction(db: Db, datasetId: string, transactionId: number): Promise<UploadTransaction | undefined> {
  const row = await db('upload_transactions').where({ id: transactionId, dataset_id: datasetId }).first();
  return row ? { ...row, id: Number(row.id) } : undefined;
}

/**
 * Records uploads while the transaction is still in the status the caller saw (OPEN for creation
 * uploads, PROCESSING for an add_media batch it made). Returns false, recording nothing, once
 * process_files has claimed an OPEN transaction: the share lock makes that claim wait for an insert
 * under way, so a batch never changes after it was claimed.
 */
export async function recordUploadsWhile(
  db: Db,
  transaction: Pick<UploadTransaction, 'id' | 'dataset_id' | 'status'>,
  files: UploadedFileRecord[],
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const unchanged = await trx('upload_transactions').where({ id: transaction.id, status: transaction.status }).forShare().first('id');
    if (!unchanged) return false;
    await recordUploadedFiles(trx, transaction.dataset_id, transaction.id, files);
    return true;
  });
}

/** Records uploaded files; a file name sent again in the same transaction replaces the earlier one. */
export async function recordUploadedFiles(db: Db, datasetId: string, transactionId: number, files: UploadedFileRecord[]): Promise<void> {
  if (files.length === 0) return;
  await db('uploaded_files')
    .insert(
      files.map((file) => ({
        transaction_id: transactionId,
        dataset_id: datasetId,
        file_name: file.fileName,
        media_kind: file.mediaKind,
        blob_sha256: file.sha256,
        size_bytes: file.size,
        folder: file.folder ?? null,
        label: file.label ?? null,
        split: file.split ?? null,
      })),
    )
    .onConflict(['transaction_id', 'file_name'])
    .merge(['media_kind', 'blob_sha256', 'size_bytes', 'folder', 'label', 'split', 'created_at']);
}

export async function countUploadedFiles(db: Db, transactionId: number): Promise<number> {
  const [{ count }] = await db('uploaded_files').where({ transaction_id: transactionId }).count({ count: '*' });
  return Number(count);
}

export interface UploadedFile {
  id: string;
  file_name: string;
  media_kind: MediaKind;
  blob_sha256: string;
  size_bytes: string;
  folder: string | null;
  /** Its label and split (from its folder, a CSV or a COCO file), or null. */
  label: string | null;
  split: string | null;
  /** The custom-metadata fields its label and split go in (its transaction's labels_from), or null. */
  label_field: string | null;
  split_field: string | null;
}

export async function recordedFileNames(db: Db, transactionId: number): Promise<Set<string>> {
  return new Set(await db('uploaded_files').where({ transaction_id: transactionId }).pluck('file_name'));
}

/** Received files (their transaction is processing) that never became media of the head version: left by a failed batch. */
function pendingUploadsQuery(db: Db, datasetId: string) {
  return db('uploaded_files as f')
    .join('upload_transactions as t', 't.id', 'f.transaction_id')
    .join('datasets as d', 'd.id', 'f.dataset_id')
    .where({ 'f.dataset_id': datasetId, 't.status': 'PROCESSING' })
    .whereNull('f.discarded_at')
    .whereNotExists(db('media as m').whereRaw('m.version_id = d.head_version_id AND m.uploaded_file_id = f.id'));
}

/** After a restore: files whose media the head no longer holds are not pending, so no reindex brings them back. */
export async function discardUploadsMissingFromHead(db: Db, datasetId: string): Promise<void> {
  await db('uploaded_files as f')
    .where('f.dataset_id', datasetId)
    .whereNull('f.discarded_at')
    .whereNotExists(
      db('media as m').join('datasets as d', 'd.head_version_id', 'm.version_id').where('d.id', datasetId).whereRaw('m.uploaded_file_id = f.id'),
    )
    .update({ discarded_at: db.fn.now() });
}

/** One upload transaction's files, or the dataset's pending ones (FileSelection of workflows/contracts.ts). */
export type FileSelection = { transactionId: number } | { pendingOf: string };

function selectedFiles(db: Db, files: FileSelection) {
  return 'transactionId' in files ? db('uploaded_files as f').where('f.transaction_id', files.transactionId) : pendingUploadsQuery(db, files.pendingOf);
}

/** Up to `count` chunks of `size` selected files after `after`, and how many chunks they all make (planIdChunks). */
export function planFileChunks(db: Db, files: FileSelection, after: string | null, size: number, count: number) {
  return planIdChunks(db, selectedFiles(db, files), 'f.id', after, size, count);
}

/** The selected files of one chunk, in id order (for pending files: those still pending). */
export async function chunkFiles(db: Db, files: FileSelection, chunk: IdRange): Promise<UploadedFile[]> {
  return inRange(selectedFiles(db, files), 'f.id', chunk)
    .orderBy('f.id')
    .select(
      'f.*',
      db('upload_transactions as lt').whereRaw('lt.id = f.transaction_id').select('lt.label_field').as('label_field'),
      db('upload_transactions as st').whereRaw('st.id = f.transaction_id').select('st.split_field').as('split_field'),
    );
}

export async function hasPendingUploads(db: Db, datasetId: string): Promise<boolean> {
  return Boolean(await pendingUploadsQuery(db, datasetId).first('f.id'));
}

function labelColumns(labels: TransactionLabels | null) {
  return { labels_from: labels?.labelsFrom ?? null, label_field: labels?.labelField ?? null, split_field: labels?.splitField ?? null };
}

/** Claims an open creation transaction for processing (with where its labels come from, or null); false when it was not open any more. */
export async function startProcessingTransaction(db: Db, transactionId: number, labels: TransactionLabels | null = null): Promise<boolean> {
  return (await db('upload_transactions').where({ id: transactionId, status: 'OPEN' }).update({ status: 'PROCESSING', ...labelColumns(labels) })) === 1;
}

/** Each folder the transaction's files were sent from, with one file sent from it (to name in a refusal). */
export async function transactionFolders(db: Db, transactionId: number): Promise<Array<{ fileName: string; folder: string }>> {
  const rows: Array<{ file_name: string; folder: string }> = await db('uploaded_files')
    .where({ transaction_id: transactionId })
    .whereNotNull('folder')
    .groupBy('folder')
    .select('folder', db.raw('min(file_name) AS file_name'));
  return rows.map((row) => ({ fileName: row.file_name, folder: row.folder }));
}

/** Gives the transaction's files their labels and splits: one statement, so a refused request writes none. */
export async function setUploadedFileLabels(db: Db, transactionId: number, labels: FileLabel[]): Promise<void> {
  await db('uploaded_files').where({ transaction_id: transactionId }).update({ label: null, split: null });
  if (labels.length === 0) return;
  await db.raw(
    `UPDATE uploaded_files f SET label = l.label, split = l.split
       FROM jsonb_to_recordset(?::jsonb) AS l("fileName" text, label text, split text)
      WHERE f.transaction_id = ? AND f.file_name = l."fileName"`,
    [JSON.stringify(labels), transactionId],
  );
}

/** Gives each of the transaction's files its folder as its label (labels_from=folder). */
export async function labelFilesByFolder(db: Db, transactionId: number): Promise<void> {
  await db('uploaded_files').where({ transaction_id: transactionId }).update({ label: db.ref('folder'), split: null });
}

/** Where a transaction's labels come from (creation or add_media batch) and the fields they go in, or null without labels. */
export async function transactionLabels(db: Db, transactionId: number): Promise<TransactionLabels | null> {
  const row = await db('upload_transactions').where({ id: transactionId }).first('labels_from', 'label_field', 'split_field');
  if (!row?.label_field) return null;
  return { labelsFrom: row.labels_from ?? 'folder', labelField: row.label_field, splitField: row.split_field ?? null };
}

export async function reopenTransaction(db: Db, transactionId: number): Promise<void> {
  await db('upload_transactions').where({ id: transactionId }).update({ status: 'OPEN' });
}

export async function deleteTransaction(db: Db, transactionId: number): Promise<void> {
  await db('upload_transactions').where({ id: transactionId }).delete();
}
