export type MediaKind = 'IMAGE' | 'VIDEO';

const IMAGE_EXTENSIONS = ['.jpg', '.jpeg', '.png', '.webp', '.gif', '.tif', '.tiff', '.avif'];
const VIDEO_EXTENSIONS = ['.mp4', '.mov', '.m4v', '.webm', '.mkv', '.avi'];
const ARCHIVE_SUFFIXES = ['.zip', '.tar', '.tar.gz', '.tgz'];

export const SUPPORTED_EXTENSIONS = [...IMAGE_EXTENSIONS, ...VIDEO_EXTENSIONS];

export function isArchiveName(fileName: string): boolean {
  const lower = fileName.toLowerCase();
  return ARCHIVE_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}

/** The media kind a file name declares by its extension, or undefined when we do not ingest it. */
export function mediaKindOf(fileName: string): MediaKind | undefined {
  const lower = fileName.toLowerCase();
  const extension = lower.slice(lower.lastIndexOf('.'));
  if (lower.lastIndexOf('.') < 0) return undefined;
  if (IMAGE_EXTENSIONS.includes(extension)) return 'IMAGE';
  if (VIDEO_EXTENSIONS.includes(extension)) return 'VIDEO';
  return undefined;
}
