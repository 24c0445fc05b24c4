/**
 * The longest name a media file may keep, in UTF-8 bytes: the unique btree index on
 * (transaction_id, file_name) takes at most ~2.7 KB a row, and no real folder layout comes near.
 */
export const MAX_MEDIA_PATH_BYTES = 1024;

/** The name a media file keeps in the dataset, and the name of the folder it is in (its label with labels_from=folder). */
export interface MediaPath {
  fileName: string;
  folder: string | null;
}

/**
 * The one naming rule for media, whatever sent them (a multipart upload, an archive, a local folder, a
 * bucket): the relative path as given, with forward slashes (`cats\1.jpg` → `cats/1.jpg`), without a
 * drive or a leading `/` (`C:\photos\cats\1.jpg` → `photos/cats/1.jpg`), without empty or `.`
 * segments, and with each `..` taking back the segment before it, never climbing above the top
 * (`../../x.jpg` → `x.jpg`). Applied to a name it made, it gives the same name.
 */
export function mediaPath(raw: string): MediaPath {
  const segments: string[] = [];
  for (const segment of raw.replace(/\\/g, '/').replace(/^[A-Za-z]:/, '').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const folder = segments.length > 1 ? segments[segments.length - 2].trim() : '';
  return { fileName: segments.join('/'), folder: folder === '' ? null : folder };
}

/** Why a media path cannot be kept (longer than MAX_MEDIA_PATH_BYTES), naming its start; undefined when it can. */
export function mediaPathRefusal(fileName: string): string | undefined {
  if (Buffer.byteLength(fileName, 'utf8') <= MAX_MEDIA_PATH_BYTES) return undefined;
  return `File path is longer than ${MAX_MEDIA_PATH_BYTES} bytes (UTF-8): ${fileName.slice(0, 80)}…`;
}
