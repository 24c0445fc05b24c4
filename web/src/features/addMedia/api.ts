import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { postForm, uploadName } from '../../api/upload';

/** The add_media sources: files, one archive, or an S3 URI (exactly one). */
export type MediaSource = { kind: 'files'; files: File[] } | { kind: 'archive'; archive: File } | { kind: 's3'; uri: string };

/** POST /dataset/{id}/add_media (202, task MEDIA_ADDITION) with the overall fraction sent; with labelsFromFolders each new file's folder is its label. */
export function addMedia(
  datasetId: string,
  source: MediaSource,
  options: { autoReindex: boolean; labelsFromFolders: boolean },
  onProgress: (fraction: number) => void,
): Promise<unknown> {
  const form = new FormData();
  if (source.kind === 'files') for (const file of source.files) form.append('files', file, uploadName(file));
  if (source.kind === 'archive') form.append('archive', source.archive, source.archive.name);
  if (source.kind === 's3') form.append('s3_uri', source.uri);
  form.append('auto_reindex', options.autoReindex ? 'true' : 'false');
  if (options.labelsFromFolders) form.append('labels_from', 'folder');
  const total = source.kind === 'files' ? source.files.reduce((sum, file) => sum + file.size, 0) : source.kind === 'archive' ? source.archive.size : 0;
  const url: keyof paths = '/api/v1/dataset/{dataset_id}/add_media';
  return postForm(url.replace('{dataset_id}', encodeURIComponent(datasetId)), form, (loaded) => onProgress(total > 0 ? Math.min(1, loaded / total) : 1));
}

/** Re-clusters every media of the dataset (a REINDEX task); the dataset becomes READY. */
export async function reindexDataset(datasetId: string) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/reindex', { params: { path: { dataset_id: datasetId } } }));
}
