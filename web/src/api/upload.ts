import { ApiError, detailOf, type Schemas } from './client';
import type { paths } from './schema';

type UploadAnswer =
  paths['/api/v1/ingestion/{dataset_id}/data_files/{transaction_id}']['post']['responses'][202]['content']['application/json'];

/** Bytes sent of each file of a batch: the multipart body carries the files in order. */
export function perFileProgress(files: readonly File[], loaded: number): number[] {
  let offset = 0;
  return files.map((file) => {
    const sent = Math.min(Math.max(loaded - offset, 0), file.size);
    offset += file.size;
    return file.size === 0 ? (loaded >= offset ? 1 : 0) : sent / file.size;
  });
}

/**
 * POSTs one batch of files (field `files`) to an upload transaction. XMLHttpRequest, not fetch: only it
 * reports upload progress. The multipart body is not expressible in openapi-fetch's typed call with
 * progress, so the path and answer types still come from the generated schema.
 */
export function uploadBatch(
  datasetId: string,
  transactionId: number,
  files: readonly File[],
  onProgress: (fractions: number[]) => void,
): Promise<UploadAnswer> {
  const form = new FormData();
  for (const file of files) form.append('files', file, file.name);
  const url: `/api/v1/ingestion/${string}/data_files/${number}` = `/api/v1/ingestion/${encodeURIComponent(datasetId)}/data_files/${transactionId}`;
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (event) => onProgress(perFileProgress(files, event.loaded));
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.response as UploadAnswer);
      else reject(new ApiError(xhr.status, detailOf(xhr.status, xhr.response as Schemas['Error'] | null)));
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload failed: the API could not be reached'));
    xhr.send(form);
  });
}
