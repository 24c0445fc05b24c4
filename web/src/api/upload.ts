import { ApiError, detailOf, type Schemas } from './client';
import { sessionStore } from './session';
import type { paths } from './schema';

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
 * no progress, so the paths and answers are still typed from the generated schema by the callers below.
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

type SimilarityAnswer = paths['/api/v1/dataset/{dataset_id}/search-image-similarity']['post']['responses'][200]['content']['application/json'];
type SimilarityQuery = paths['/api/v1/dataset/{dataset_id}/search-image-similarity']['post']['parameters']['query'];
export type EntityType = SimilarityQuery['entity_type'];
/** A box in an image as fractions of its width and height (the API's bounding_box). */
export type Box = NonNullable<Schemas['Preview']['bounding_box']>;

/**
 * Stages an image of the user's as a visual-search anchor (anchor_type UPLOAD) for `entityType`;
 * with `box`, only that part of the image is encoded (an object to find).
 */
export function searchByImage(datasetId: string, image: Blob, fileName: string, entityType: EntityType, box?: Box | null): Promise<SimilarityAnswer> {
  const form = new FormData();
  form.append('file', image, fileName);
  const url: keyof paths = '/api/v1/dataset/{dataset_id}/search-image-similarity';
  const query = new URLSearchParams({ entity_type: entityType });
  if (box) query.set('bounding_box', JSON.stringify(box));
  return postForm(`${url.replace('{dataset_id}', encodeURIComponent(datasetId))}?${query}`, form);
}
