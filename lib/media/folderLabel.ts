import path from 'node:path';

/** A file name as a client or an archive gives it (`cats/1.jpg`, `C:\photos\cats\1.jpg`), split into its base name and its parent folder's name. */
export function splitFolder(name: string): { fileName: string; folder: string | null } {
  const normalised = name.replace(/\\/g, '/');
  const folder = path.posix.basename(path.posix.dirname(normalised)).trim();
  return { fileName: path.posix.basename(normalised), folder: folder === '' || folder === '.' || folder === '..' || folder === '/' ? null : folder };
}
