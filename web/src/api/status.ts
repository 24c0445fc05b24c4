import type { Dataset } from './client';

/** Statuses a dataset leaves by itself (a running task): the list keeps polling while one is shown. */
export const TRANSIENT_DATASET_STATUSES: ReadonlySet<Dataset['status_new']> = new Set(['UPLOADING', 'INDEXING', 'READ ONLY']);

/** Upload types the API accepts (docs/decisions.md "Uploads"); anything else it refuses with 400. */
export const ACCEPTED_EXTENSIONS = ['.jpg', '.jpeg', '.png', '.webp', '.gif', '.tif', '.tiff', '.avif', '.mp4', '.mov', '.m4v', '.webm', '.mkv', '.avi'];

export function isAcceptedFile(name: string): boolean {
  const dot = name.lastIndexOf('.');
  return dot >= 0 && ACCEPTED_EXTENSIONS.includes(name.slice(dot).toLowerCase());
}
