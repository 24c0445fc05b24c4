/**
 * The copy of a duplicate group to keep, decided from the group's own facts when asked (never from
 * flags stored when the dataset was indexed): the original over a derivative. Pure.
 */
import type { PixelPrint } from './pixelMatch';

export interface Candidate {
  id: string;
  fileName: string;
  width: number | null;
  height: number | null;
  sizeBytes: number | null;
  /** sharp's name of the encoding (jpeg, png, webp, …); null when unknown. */
  format: string | null;
  /** A video's length; null for an image. */
  durationMs: number | null;
  /** When the copy was uploaded (media rows keep it through versions). */
  createdAt: Date;
  /** Quality issues other than being a duplicate. */
  issues: string[];
  /** Its pixel print (lib/media/pixelPrint.ts); null when it has none yet. */
  print: PixelPrint | null;
}

/** The fact that set the keeper apart from its closest rival. */
export const KEEPER_FACTS = ['kept_before', 'decodable', 'pixels', 'lossless', 'least_edited', 'bits_per_pixel', 'quality_issues', 'earlier_upload', 'file_name'] as const;
export type KeeperFact = (typeof KEEPER_FACTS)[number];

export interface KeeperSuggestion {
  mediaId: string;
  /** One line per fact that set copies aside, in the order they were weighed; the last one decided. */
  reasons: string[];
  decidingFact: KeeperFact;
}

/** Pixel counts within 1 % are the same picture size (codecs round odd sizes). */
const SAME_PIXELS = 0.01;
/** A copy needs 10 % more bits per pixel than another of its format to count as the better encoding. */
const BETTER_BITS_PER_PIXEL = 1.1;
/** Aspect ratios further apart than this mean a crop, not a resize. */
const CROP_ASPECT = 0.01;
const LOSSLESS_FORMATS = new Set(['png', 'tiff', 'bmp']);
/** The grid prints are compared on, and how far (grey levels) from the least edited a copy may be and still tie with it. */
const EDIT_GRID = 32;
const SAME_EDITS = 0.5;
/**
 * Issues that describe a copy's own pixels. `outliers` is left out: it is a fact about the neighbourhood
 * when the dataset was indexed, stale once copies arrive, and copies of one picture share it anyway.
 */
const PIXEL_ISSUES = new Set(['blur', 'dark', 'bright']);

const pixels = (candidate: Candidate) => (candidate.width ?? 0) * (candidate.height ?? 0);
/** A video's bits per pixel are a second's: a longer copy of a clip is not a better encoding. */
const bitsPerPixel = (candidate: Candidate) =>
  pixels(candidate) > 0 && candidate.sizeBytes ? (candidate.sizeBytes * 8) / pixels(candidate) / (candidate.durationMs ? candidate.durationMs / 1000 : 1) : 0;
const lossless = (candidate: Candidate) => LOSSLESS_FORMATS.has(candidate.format ?? '');
const resolution = (candidate: Candidate) => `${candidate.width}×${candidate.height}`;
const aspect = (candidate: Candidate) => (candidate.height ? (candidate.width ?? 0) / candidate.height : 0);
const fileSize = (bytes: number | null) => (bytes === null ? 'unknown size' : bytes < 1_000_000 ? `${Math.round(bytes / 1000)} kB` : `${(bytes / 1_000_000).toFixed(2)} MB`);
const pixelIssues = (candidate: Candidate) => candidate.issues.filter((issue) => PIXEL_ISSUES.has(issue));
const list = (items: string[]) => [...new Set(items)].join(', ');

/** A print resampled (nearest) to EDIT_GRID × EDIT_GRID, so prints of any size compare cell by cell. */
function editGrid(print: PixelPrint): Float64Array {
  const out = new Float64Array(EDIT_GRID * EDIT_GRID);
  for (let j = 0; j < EDIT_GRID; j++) {
    const y = Math.min(print.height - 1, Math.floor(((j + 0.5) * print.height) / EDIT_GRID));
    for (let i = 0; i < EDIT_GRID; i++) out[j * EDIT_GRID + i] = print.pixels[y * print.width + Math.min(print.width - 1, Math.floor(((i + 0.5) * print.width) / EDIT_GRID))];
  }
  return out;
}

function meanDifference(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

/**
 * How far each candidate's pixels are, on average, from every other copy of the group with a print: copies made
 * from one original (a caption, a brightness shift, a resize) each differ from it by their own edit, and from each
 * other by both, so the original is the one nearest to all. Null when a candidate has no print to compare.
 */
function distancesToCopies(candidates: Candidate[], group: Candidate[]): Map<Candidate, number> | null {
  const grids = new Map(group.filter((copy) => copy.print).map((copy) => [copy, editGrid(copy.print!)]));
  if (grids.size < 2 || candidates.some((candidate) => !grids.has(candidate))) return null;
  return new Map(
    candidates.map((candidate) => {
      const others = [...grids].filter(([copy]) => copy !== candidate);
      return [candidate, others.reduce((sum, [, grid]) => sum + meanDifference(grids.get(candidate)!, grid), 0) / others.length];
    }),
  );
}

interface Step {
  fact: KeeperFact;
  /** The candidates that stay in the running (never none); `group` is every copy, those set aside included. */
  keep: (candidates: Candidate[], group: Candidate[]) => Candidate[];
  /** Why the first survivor beats the candidates set aside. */
  reason: (best: Candidate, setAside: Candidate[], group: Candidate[]) => string;
}

const STEPS: Step[] = [
  {
    fact: 'decodable',
    keep: (candidates) => candidates.filter((candidate) => !candidate.issues.includes('broken')),
    reason: (_best, setAside) => `decodable (${list(setAside.map((other) => other.fileName))} is broken)`,
  },
  {
    fact: 'pixels',
    keep: (candidates) => {
      const most = Math.max(...candidates.map(pixels));
      return candidates.filter((candidate) => pixels(candidate) >= most * (1 - SAME_PIXELS));
    },
    reason: (best, setAside) => {
      const kind = setAside.every((other) => Math.abs(aspect(other) - aspect(best)) > CROP_ASPECT * aspect(best))
        ? 'a crop'
        : setAside.every((other) => Math.abs(aspect(other) - aspect(best)) <= CROP_ASPECT * aspect(best))
          ? 'a smaller copy: resized, or cropped evenly'
          : 'smaller or cropped copies';
      return `more pixels: ${resolution(best)} over ${list(setAside.map(resolution))} (${kind})`;
    },
  },
  {
    fact: 'lossless',
    keep: (candidates) => (candidates.some(lossless) ? candidates.filter(lossless) : candidates),
    reason: (best, setAside) => `lossless ${best.format?.toUpperCase()} over ${list(setAside.map((other) => (other.format ?? 'unknown').toUpperCase()))}`,
  },
  {
    fact: 'least_edited',
    keep: (candidates, group) => {
      const distances = distancesToCopies(candidates, group);
      if (!distances) return candidates;
      const least = Math.min(...distances.values());
      return candidates.filter((candidate) => distances.get(candidate)! <= least + SAME_EDITS);
    },
    reason: (best, setAside, group) => {
      const distances = distancesToCopies([best, ...setAside], group)!;
      return `least edited: closest to the other copies (pixels ${distances.get(best)!.toFixed(1)} grey levels from them on average, against ${list(setAside.map((other) => distances.get(other)!.toFixed(1)))}: an overlay, a brightness or colour change)`;
    },
  },
  {
    fact: 'bits_per_pixel',
    keep: (candidates) => {
      const most = Math.max(...candidates.map(bitsPerPixel));
      return candidates.filter((candidate) => bitsPerPixel(candidate) * BETTER_BITS_PER_PIXEL >= most);
    },
    reason: (best, setAside) =>
      `more bits per pixel: ${bitsPerPixel(best).toFixed(2)} (${fileSize(best.sizeBytes)}) over ${list(setAside.map((other) => `${bitsPerPixel(other).toFixed(2)} (${fileSize(other.sizeBytes)})`))} (a re-encode at lower quality)`,
  },
  {
    fact: 'quality_issues',
    keep: (candidates) => {
      const fewest = Math.min(...candidates.map((candidate) => pixelIssues(candidate).length));
      return candidates.filter((candidate) => pixelIssues(candidate).length === fewest);
    },
    reason: (best, setAside) =>
      `fewer quality issues: ${pixelIssues(best).join(', ') || 'none'} over ${list(setAside.map((other) => pixelIssues(other).join(', ')))}`,
  },
  {
    fact: 'earlier_upload',
    keep: (candidates) => {
      const first = Math.min(...candidates.map((candidate) => candidate.createdAt.getTime()));
      return candidates.filter((candidate) => candidate.createdAt.getTime() === first);
    },
    reason: (best, setAside) => `uploaded first (${best.createdAt.toISOString()}), before ${list(setAside.map((other) => other.fileName))}`,
  },
];

/** The shorter name first (a copy tends to add to its original's: "cat (1).jpg", "cat_copy.jpg"), then by name. */
function byName(a: Candidate, b: Candidate): number {
  return a.fileName.length - b.fileName.length || a.fileName.localeCompare(b.fileName) || (a.id < b.id ? -1 : 1);
}

/**
 * The copy to keep and why: one kept before (when a group changed); else each fact in turn sets aside
 * the copies that are worse by it: a decodable copy, then the most pixels (the others are resized or
 * cropped from it), a lossless encoding, the least edited (nearest to every other copy), the most bits per pixel within a format (the others re-encoded
 * at lower quality), the fewest issues of its own pixels, the earliest upload, the shorter name, and the first name.
 */
export function suggestKeeper(candidates: Candidate[], keptBefore: ReadonlySet<string> = new Set()): KeeperSuggestion {
  const earlier = candidates.filter((candidate) => keptBefore.has(candidate.id));
  if (earlier.length > 0) {
    return { mediaId: earlier.sort((a, b) => (a.id < b.id ? -1 : 1))[0].id, reasons: ['kept when this group was decided before'], decidingFact: 'kept_before' };
  }
  let running = [...candidates].sort(byName);
  const reasons: string[] = [];
  let decidingFact: KeeperFact = 'file_name';
  for (const step of STEPS) {
    if (running.length === 1) break;
    const kept = step.keep(running, candidates);
    if (kept.length === 0 || kept.length === running.length) continue;
    const setAside = running.filter((candidate) => !kept.includes(candidate));
    reasons.push(step.reason(kept[0], setAside, candidates));
    decidingFact = step.fact;
    running = kept;
  }
  if (running.length > 1) {
    reasons.push(`as good as ${list(running.slice(1).map((other) => other.fileName))} by every fact: ${running[0].fileName.length < running[1].fileName.length ? 'the shorter name' : 'first by name'}`);
    decidingFact = 'file_name';
  }
  return { mediaId: running[0].id, reasons, decidingFact };
}
