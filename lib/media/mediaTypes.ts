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

const CONTENT_TYPES: Record<string, string> = {
  '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.webp': 'image/webp', '.gif': 'image/gif',
  '.tif': 'image/tiff', '.tiff': 'image/tiff', '.avif': 'image/avif',
  '.mp4': 'video/mp4', '.m4v': 'video/mp4', '.mov': 'video/quicktime', '.webm': 'video/webm',
  '.mkv': 'video/x-matroska', '.avi': 'video/x-msvideo',
};

/** The MIME type to serve a stored file with, from its name (frames are stored as JPEG). */
export function contentTypeOf(fileName: string, kind: 'IMAGE' | 'VIDEO' | 'VIDEO_FRAME'): string {
  if (kind === 'VIDEO_FRAME') return 'image/jpeg';
  const lower = fileName.toLowerCase();
  return CONTENT_TYPES[lower.slice(lower.lastIndexOf('.'))] ?? 'application/octet-stream';
}
