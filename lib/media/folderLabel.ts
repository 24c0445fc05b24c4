import path from 'node:path';

/** The custom-metadata field folder names go in when labels_from=folder names none (and the dataset declared none). */
export const DEFAULT_LABEL_FIELD = 'label';

/** A file name as a client or an archive gives it (`cats/1.jpg`, `C:\photos\cats\1.jpg`), split into its base name and its parent folder's name. */
export function splitFolder(name: string): { fileName: string; folder: string | null } {
  const normalised = name.replace(/\\/g, '/');
  const folder = path.posix.basename(path.posix.dirname(normalised)).trim();
  return { fileName: path.posix.basename(normalised), folder: folder === '' || folder === '.' || folder === '..' || folder === '/' ? null : folder };
}
