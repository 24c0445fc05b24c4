import type { Db } from '../connection';
import type { MediaKind } from '../../lib/media/mediaTypes';

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
}

/** A transaction collecting files: OPEN for creation uploads, PROCESSING at once for an add_media batch. */
export async function openUploadTransaction(
  db: Db,
  datasetId: string,
  userId: string,
  status: UploadTransaction['status'] = 'OPEN',
): Promise<number> {
  const [row] = await db('upload_transactions').insert({ dataset_id: datasetId, created_by: userId, status }).returning('id');
  return Number(row.id);
}

export async function findUploadTransaction(db: Db, datasetId: string, transactionId: number): Promise<UploadTransaction | undefined> {
  const row = await db('upload_transactions').where({ id: transactionId, dataset_id: datasetId }).first();
  return row ? { ...row, id: Number(row.id) } : undefined;
}

/** Records uploaded files; a file name sent again in the same transaction replaces the earlier one. */
export async function recordUploadedFiles(
  db: Db,
  datasetId: string,
  transactionId: number,
  files: UploadedFileRecord[],
): Promise<void> {
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
      })),
    )
    .onConflict(['transaction_id', 'file_name'])
    .merge(['media_kind', 'blob_sha256', 'size_bytes', 'created_at']);
}

export async function countUploadedFiles(db: Db, transactionId: number): Promise<number> {
  const [{ count }] = await db('uploaded_files').where({ transaction_id: transactionId }).count({ count: '*' });
  return Number(count);
}

/** Files a batch received (its transaction is processing) that never became media: left by a failed batch. */
export function pendingUploads(db: Db, datasetId: string) {
  return db('uploaded_files as f')
    .join('upload_transactions as t', 't.id', 'f.transaction_id')
    .where({ 'f.dataset_id': datasetId, 't.status': 'PROCESSING' })
    .whereNotExists(db('media as m').whereRaw('m.uploaded_file_id = f.id'));
}
