import path from 'node:path';

/**
 * The names media bytes take under images/ in an export, deterministic for a version and unique
 * even on case-insensitive file systems:
 * - an image or video keeps its file name when it is the first (by arrival, then id) of the
 *   version's images and videos carrying that name, compared case-insensitively;
 * - a later one becomes `stem (2).ext`, `stem (3).ext`, … by its rank;
 * - a video frame becomes `<its video's name>.frames/<frame index, 6 digits>.jpg`;
 * - a derived name that is some image's or video's own file name (or a name that is not a plain
 *   relative path) falls back to `stem (<media id>).ext`, then `stem (<media id>-2).ext`, ….
 * Own names are distinct by their rank; derived names differ from each other by construction
 * (a rank or a media id in the suffix) and from own names by the check the caller does.
 */

/** A name that can go into a ZIP as it is: a relative path of plain segments, no control characters. */
export function isPlainRelativePath(name: string): boolean {
  if (name.length === 0 || name.length > 1024 || name.includes('\\')) return false;
  if (/[\u0000-\u001f\u007f]/.test(name)) return false;
  return name.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** The plain segments of a name that is not a plain relative path (`/srv/a.jpg` → `srv/a.jpg`). */
function plainSegments(name: string): string {
  const segments = name
    .replace(/[\u0000-\u001f\u007f]/g, '_')
    .split(/[\\/]+/)
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..');
  return segments.join('/').slice(-512) || 'file';
}

function splitExtension(name: string): { stem: string; extension: string } {
  const extension = path.posix.extname(path.posix.basename(name));
  return { stem: name.slice(0, name.length - extension.length), extension };
}

/** What the caller asks about derived names: which of them are own file names of images or videos of the version. */
export type TakenNames = (names: string[]) => Promise<Set<string>>;

/** One name to settle: final at once (`own`), or the first of `candidate(0)`, `candidate(1)`, … nobody owns. */
export interface NameRequest {
  key: string;
  own?: string;
  candidate(attempt: number): string;
}

/** The media-id fallbacks: `stem (<id>).ext`, `stem (<id>-2).ext`, …. */
function idForm(stem: string, extension: string, id: string, n: number): string {
  return `${stem} (${id}${n > 1 ? `-${n}` : ''})${extension}`;
}

/** The name request of an image or video: `rank` earlier images and videos of the version share its name. */
export function topLevelName(item: { id: string; fileName: string; rank: number }): NameRequest {
  const plain = isPlainRelativePath(item.fileName);
  const { stem, extension } = splitExtension(plain ? item.fileName : plainSegments(item.fileName));
  if (plain && item.rank === 0) return { key: item.id, own: item.fileName, candidate: () => item.fileName };
  if (plain) {
    return { key: item.id, candidate: (attempt) => (attempt === 0 ? `${stem} (${item.rank + 1})${extension}` : idForm(stem, extension, item.id, attempt)) };
  }
  return { key: item.id, candidate: (attempt) => idForm(stem, extension, item.id, attempt + 1) };
}

/** The name request of a video frame, once its video's name is settled. */
export function frameName(item: { id: string; videoName: string; frameIndex: number }): NameRequest {
  const stem = `${item.videoName}.frames/${String(item.frameIndex).padStart(6, '0')}`;
  return { key: item.id, candidate: (attempt) => (attempt === 0 ? `${stem}.jpg` : idForm(stem, '.jpg', item.id, attempt)) };
}

/** Settles every request: own names at once, derived ones by asking `taken` a round at a time. */
export async function settleNames(requests: NameRequest[], taken: TakenNames): Promise<Map<string, string>> {
  const settled = new Map<string, string>();
  let pending: Array<{ request: NameRequest; attempt: number }> = [];
  for (const request of requests) {
    if (request.own !== undefined) settled.set(request.key, request.own);
    else pending.push({ request, attempt: 0 });
  }
  while (pending.length > 0) {
    const names = pending.map(({ request, attempt }) => request.candidate(attempt));
    const owned = await taken([...new Set(names)]);
    const next: typeof pending = [];
    pending.forEach((entry, i) => {
      if (owned.has(names[i])) next.push({ request: entry.request, attempt: entry.attempt + 1 });
      else settled.set(entry.request.key, names[i]);
    });
    pending = next;
  }
  return settled;
}

/** What naming needs of an exported row: the image or video it came as, and a frame's index. */
export interface NamedRow {
  id: string;
  kind: 'IMAGE' | 'VIDEO' | 'VIDEO_FRAME';
  top_id: string;
  top_file_name: string;
  top_name_rank: number;
  frame_index: number | null;
}

/**
 * The archive names of a page of rows, by id: images and videos first, then frames after their
 * video's settled name (whether or not the video is in the page, the result is the same).
 */
export async function archiveNamesOf(rows: NamedRow[], taken: TakenNames): Promise<Map<string, string>> {
  const tops = new Map<string, NameRequest>();
  for (const row of rows) {
    if (!tops.has(row.top_id)) tops.set(row.top_id, topLevelName({ id: row.top_id, fileName: row.top_file_name, rank: row.top_name_rank }));
  }
  const topNames = await settleNames([...tops.values()], taken);
  const frames = rows
    .filter((row) => row.kind === 'VIDEO_FRAME')
    .map((row) => frameName({ id: row.id, videoName: topNames.get(row.top_id)!, frameIndex: row.frame_index ?? 0 }));
  const frameNames = await settleNames(frames, taken);
  return new Map(rows.map((row) => [row.id, row.kind === 'VIDEO_FRAME' ? frameNames.get(row.id)! : topNames.get(row.id)!]));
}

/** The ZIP's own name: the caller's file name, ending in .zip. */
export function zipFileName(fileName: string): string {
  return /\.zip$/i.test(fileName) ? fileName : `${fileName}.zip`;
}
