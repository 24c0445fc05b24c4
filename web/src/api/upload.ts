import { ApiError, detailOf, type Schemas } from './client';
import { sessionStore } from './session';

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
 * POSTs a multipart form with XMLHttpRequest, not fetch: only it reports upload progress. openapi-fetch has
 * no progress, so the features' api modules that call it type its paths and answers from the generated schema.
 */
export function postForm<T>(url: string, form: FormData, onProgress?: (loaded: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.responseType = 'json';
    if (onProgress) xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.response as T);
      else {
        if (xhr.status === 401) sessionStore.requireLogin();
        reject(new ApiError(xhr.status, detailOf(xhr.status, xhr.response as Schemas['Error'] | null)));
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload failed: the API could not be reached'));
    xhr.send(form);
  });
}

/** The name a file is sent under: its path in a picked folder (cats/1.jpg, whose folder can be its label), else its name. */
export function uploadName(file: File): string {
  return file.webkitRelativePath || file.name;
}
