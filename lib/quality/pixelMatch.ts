/**
 * Duplicate tiers: exact (the same bytes), near-identical (a pixel-level check on the thumbnails confirms the
 * embedding: the same picture resized, re-encoded, cropped a little or brightness-shifted) and similar (the
 * embedding alone). Pure: prints are made by lib/media/pixelPrint.ts (from the ingest's decode). See docs/decisions.md.
 */

export type DuplicateTier = 'exact' | 'near_identical' | 'similar';
export const DUPLICATE_TIERS: readonly DuplicateTier[] = ['exact', 'near_identical', 'similar'];
/** What duplicate review, Accept all and the `duplicates` issue mean unless `similar` is asked for. */
export const DEFAULT_TIERS: readonly DuplicateTier[] = ['exact', 'near_identical'];

/** The better pair first: the higher tier (exact, near-identical, similar), then the higher similarity. */
export function betterPairFirst(a: { tier: DuplicateTier; similarity: number }, b: { tier: DuplicateTier; similarity: number }): number {
  return DUPLICATE_TIERS.indexOf(a.tier) - DUPLICATE_TIERS.indexOf(b.tier) || b.similarity - a.similarity;
}

/** A greyscale copy of a picture, its longest side PRINT_SIDE px (lib/media/pixelPrint.ts). */
export interface PixelPrint {
  width: number;
  height: number;
  pixels: Uint8Array;
}

export const PIXEL_MATCH = {
  /** Correlation of the aligned prints (brightness and contrast cancel out): the same layout. */
  layout: 0.95,
  /**
   * Correlation of their fine detail (each print minus its local mean) at that alignment: the same picture, not a
   * look-alike. Derivatives of real photos measured 0.957-0.998, distinct Fashion-MNIST items of one class at most 0.915.
   */
  detail: 0.92,
  /** Crops tried: the share of the larger picture's side the smaller one may cover. */
  scales: [1, 0.975, 0.95, 0.925, 0.9],
  /** Positions of a crop along each axis (0 = left/top, 1 = right/bottom). */
  offsets: [0, 0.25, 0.5, 0.75, 1],
  /** The side of the grid both prints are sampled on. */
  grid: 48,
  /** The coarser grid every alignment is first scored on, and how many of the whole pictures and of the crops are scored again on the full one. */
  coarseGrid: 16,
  refined: 3,
  /** How much better a crop must align than the whole picture to be taken for one. */
  cropMargin: 0.005,
  /**
   * The share of the grid's side a band along one edge may differ by (a caption, a watermark strip): the whole pictures
   * are compared again without it, at the same thresholds. Measured: every caption copy of the 53 real photos passes
   * without its bottom sixth (16 passed whole), no two of 12,499 distinct Fashion-MNIST items of one class do (detail 0.912 at most).
   */
  band: 1 / 6,
};

export type Edge = 'bottom' | 'top' | 'left' | 'right';
const EDGES: readonly Edge[] = ['bottom', 'top', 'left', 'right'];

export interface PrintMatch {
  layout: number;
  detail: number;
  /** The share of the other print's side this one covers at the best alignment (1: the whole picture). */
  scale: number;
  /** Which print was found inside the other: 'a', 'b', or 'same' when neither is a crop. */
  inside: 'a' | 'b' | 'same';
  /** The whole pictures compared without a band along the edge where that aligns best (PIXEL_MATCH.band); only for prints that do not match as found. */
  banded?: { edge: Edge; layout: number; detail: number };
}

interface AxisSamples {
  low: Int32Array;
  high: Int32Array;
  weight: Float64Array;
  /** 1 - weight: the weight of the pixel itself. */
  own: Float64Array;
}

/** Where each of `n` samples along an axis of `size` px falls, from `start` over `span`: its pixel, the next, and the weight of the next. */
function axisSamples(start: number, span: number, size: number, n: number): AxisSamples {
  const low = new Int32Array(n);
  const high = new Int32Array(n);
  const weight = new Float64Array(n);
  const own = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const at = Math.min(size - 1, Math.max(0, start + ((i + 0.5) * span) / n - 0.5));
    low[i] = Math.floor(at);
    high[i] = Math.min(size - 1, low[i] + 1);
    weight[i] = at - low[i];
    own[i] = 1 - weight[i];
  }
  return { low, high, weight, own };
}

/**
 * The axes of every match's samples, each made once: they depend on the prints' sizes alone (prints are at most
 * PRINT_SIDE px a side, so few sizes recur), and the alignments of one print inside the other share them (5 scales
 * × 5 offsets give 25 distinct axes for 125 regions). Emptied when it grows past AXES_KEPT.
 */
const axes = new Map<number, Map<number, Map<number, AxisSamples>>>();
const AXES_KEPT = 20_000;
let axesKept = 0;

/** An axis by its exact numbers (Map keys compare numbers exactly): by size and grid (whole numbers), start, then span. */
function cachedAxis(start: number, span: number, size: number, n: number): AxisSamples {
  const grid = size * 1000 + n;
  let starts = axes.get(grid);
  if (!starts) axes.set(grid, (starts = new Map()));
  let spans = starts.get(start);
  if (!spans) starts.set(start, (spans = new Map()));
  let axis = spans.get(span);
  if (!axis) {
    if (++axesKept > AXES_KEPT) {
      axes.clear();
      axesKept = 1;
      axes.set(grid, (starts = new Map([[start, (spans = new Map())]])));
    }
    spans.set(span, (axis = axisSamples(start, span, size, n)));
  }
  return axis;
}

/**
 * The print's region (x0, y0, w, h) resampled bilinearly to n×n into `out`; returns the sum of the samples, added in
 * index order (the same sum as a pass over `out` would make).
 */
function sampleInto(print: PixelPrint, x0: number, y0: number, w: number, h: number, n: number, out: Float64Array): number {
  const { width, height, pixels } = print;
  const xs = cachedAxis(x0, w, width, n);
  const ys = cachedAxis(y0, h, height, n);
  const { low: lefts, high: rights, weight: fxs, own: gxs } = xs;
  let sum = 0;
  for (let j = 0; j < n; j++) {
    const top = ys.low[j] * width;
    const bottom = ys.high[j] * width;
    const fy = ys.weight[j];
    const gy = ys.own[j];
    for (let i = 0; i < n; i++) {
      const left = lefts[i];
      const right = rights[i];
      const fx = fxs[i];
      const gx = gxs[i];
      const upper = pixels[top + left] * gx + pixels[top + right] * fx;
      const lower = pixels[bottom + left] * gx + pixels[bottom + right] * fx;
      const value = upper * gy + lower * fy;
      out[j * n + i] = value;
      sum += value;
    }
  }
  return sum;
}

/** The print's region (x0, y0, w, h) resampled bilinearly to n×n (into `out` when given). */
function sample(print: PixelPrint, x0: number, y0: number, w: number, h: number, n: number, out: Float64Array = new Float64Array(n * n)): Float64Array {
  sampleInto(print, x0, y0, w, h, n, out);
  return out;
}

/** A sample with its mean taken out, and the sum of its squares: one side of many correlations (the same sums as correlation's). */
interface Centred {
  values: Float64Array;
  squares: number;
}

/** A whole print sampled on an n×n grid, centred, and its detail: made once per print and grid, shared by every match of that print. Read only. */
interface Whole {
  values: Float64Array;
  centred: Centred;
  detail: Float64Array;
}

const wholes = new WeakMap<PixelPrint, Map<number, Whole>>();

function wholeOf(print: PixelPrint, n: number): Whole {
  let byGrid = wholes.get(print);
  if (!byGrid) wholes.set(print, (byGrid = new Map()));
  let whole = byGrid.get(n);
  if (!whole) {
    const values = sample(print, 0, 0, print.width, print.height, n);
    byGrid.set(n, (whole = { values, centred: centred(values), detail: detailOf(values, n) }));
  }
  return whole;
}

function centred(a: Float64Array): Centred {
  let ma = 0;
  for (let i = 0; i < a.length; i++) ma += a[i];
  ma /= a.length;
  const values = new Float64Array(a.length);
  let squares = 0;
  for (let i = 0; i < a.length; i++) {
    values[i] = a[i] - ma;
    squares += (a[i] - ma) ** 2;
  }
  return { values, squares };
}

/** correlation(a, b) with a centred beforehand and b's sum known (sampleInto's): the same operations in the same order, so the same result. */
function correlationWith(a: Centred, b: Float64Array, sumOfB: number): number {
  const mb = sumOfB / b.length;
  let ab = 0;
  let bb = 0;
  const values = a.values;
  for (let i = 0; i < b.length; i++) {
    ab += values[i] * (b[i] - mb);
    bb += (b[i] - mb) ** 2;
  }
  const aa = a.squares;
  if (aa === 0 || bb === 0) return aa === bb ? 1 : 0;
  return ab / Math.sqrt(aa * bb);
}

function correlation(a: Float64Array, b: Float64Array): number {
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < a.length; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= a.length;
  mb /= b.length;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += (a[i] - ma) * (b[i] - mb);
    aa += (a[i] - ma) ** 2;
    bb += (b[i] - mb) ** 2;
  }
  if (aa === 0 || bb === 0) return aa === bb ? 1 : 0;
  return ab / Math.sqrt(aa * bb);
}

/**
 * Scratch arrays reused by every match on this thread, by length: a pair's transient samples would otherwise be tens of
 * kB of fresh backing stores, which a worker's large heap pays for in garbage collections.
 */
const areaTables = new Map<number, Float64Array>();
const layoutSamples = new Map<number, Float64Array>();
/** The bigger print's sample at one alignment and its detail, read until the next alignment's are. */
const alignedSamples = new Map<number, Float64Array>();
const alignedDetails = new Map<number, Float64Array>();
function scratchOf(kept: Map<number, Float64Array>, length: number): Float64Array {
  let scratch = kept.get(length);
  if (!scratch) kept.set(length, (scratch = new Float64Array(length)));
  return scratch;
}

/** Each value minus the mean of its 5×5 neighbourhood: the detail a look-alike does not share. */
function detailOf(values: Float64Array, n: number, out: Float64Array = new Float64Array(n * n)): Float64Array {
  // Window sums from a summed-area table: (n + 1)² sums instead of 25 reads a cell. Its first row and column stay 0.
  const side = n + 1;
  const table = scratchOf(areaTables, side * side);
  for (let y = 0; y < n; y++) {
    let row = 0;
    for (let x = 0; x < n; x++) {
      row += values[y * n + x];
      table[(y + 1) * side + x + 1] = table[y * side + x + 1] + row;
    }
  }
  for (let j = 0; j < n; j++) {
    const top = Math.max(0, j - 2);
    const bottom = Math.min(n - 1, j + 2) + 1;
    for (let i = 0; i < n; i++) {
      const left = Math.max(0, i - 2);
      const right = Math.min(n - 1, i + 2) + 1;
      const sum = table[bottom * side + right] - table[top * side + right] - table[bottom * side + left] + table[top * side + left];
      out[j * n + i] = values[j * n + i] - sum / ((bottom - top) * (right - left));
    }
  }
  return out;
}

/** Whether a layout and detail correlation say the same picture (PIXEL_MATCH's thresholds). */
function passesPixelMatch({ layout, detail }: { layout: number; detail: number }): boolean {
  return layout >= PIXEL_MATCH.layout && detail >= PIXEL_MATCH.detail;
}

/** Where one print (`small`: 'a' or 'b') sits inside the other: the same for every two prints of these sizes. */
interface Placement {
  small: 'a' | 'b';
  region: [x0: number, y0: number, w: number, h: number];
  scale: number;
  inside: PrintMatch['inside'];
}

/** Every placement PIXEL_MATCH tries for prints of these sizes, each distinct region once (offsets along an axis without slack coincide). */
function placementsOf(a: PixelPrint, b: PixelPrint): Placement[] {
  const placements = new Map<string, Placement>();
  for (const [small, big, name] of [
    [a, b, 'a'],
    [b, a, 'b'],
  ] as const) {
    const aspect = small.width / small.height;
    for (const scale of PIXEL_MATCH.scales) {
      let w = big.width * scale;
      let h = w / aspect;
      if (h > big.height * scale) {
        h = big.height * scale;
        w = h * aspect;
      }
      const covers = Math.max(w / big.width, h / big.height);
      for (const fx of PIXEL_MATCH.offsets) {
        for (const fy of PIXEL_MATCH.offsets) {
          const region: Placement['region'] = [(big.width - w) * fx, (big.height - h) * fy, w, h];
          const key = `${name}:${region.map((value) => value.toFixed(3)).join(',')}`;
          if (!placements.has(key)) placements.set(key, { small: name, region, scale: covers, inside: covers > 0.99 ? 'same' : name });
        }
      }
    }
  }
  return [...placements.values()];
}

/** The placements of two print sizes, and which of them are of the whole picture and which crops (by index, in search order). */
interface Placements {
  all: Placement[];
  wholes: Int32Array;
  crops: Int32Array;
}

/** The placements of each two print sizes met so far (a few hundred at most: prints are at most PRINT_SIDE px a side); emptied past PLACEMENTS_KEPT. */
const placementsBySizes = new Map<string, Placements>();
const PLACEMENTS_KEPT = 2_000;

/** Every placement PIXEL_MATCH tries for the two prints' sizes, made once for those sizes. */
function placementsFor(a: PixelPrint, b: PixelPrint): Placements {
  const sizes = `${a.width}x${a.height}:${b.width}x${b.height}`;
  let placements = placementsBySizes.get(sizes);
  if (!placements) {
    if (placementsBySizes.size >= PLACEMENTS_KEPT) placementsBySizes.clear();
    const all = placementsOf(a, b);
    const indices = all.map((_, i) => i);
    const wholes = Int32Array.from(indices.filter((i) => all[i].inside === 'same'));
    const crops = Int32Array.from(indices.filter((i) => all[i].inside !== 'same'));
    placementsBySizes.set(sizes, (placements = { all, wholes, crops }));
  }
  return placements;
}

/**
 * The layout correlation of the placements at `indices` of print `a` and `b`, sampled on an n×n grid (each region
 * into one scratch sample), into `layouts` at the same indices.
 */
function scoreLayouts(a: PixelPrint, b: PixelPrint, all: Placement[], indices: Int32Array, n: number, layouts: Float64Array): void {
  const scratch = scratchOf(layoutSamples, n * n);
  const centredA = wholeOf(a, n).centred;
  const centredB = wholeOf(b, n).centred;
  for (let k = 0; k < indices.length; k++) {
    const { small, region } = all[indices[k]];
    const sum = sampleInto(small === 'a' ? b : a, region[0], region[1], region[2], region[3], n, scratch);
    layouts[indices[k]] = correlationWith(small === 'a' ? centredA : centredB, scratch, sum);
  }
}

/** The grid's cells outside a band along `edge`, made once per grid side and edge. */
const bandCells = new Map<string, Int32Array>();
function outsideBand(n: number, edge: Edge): Int32Array {
  const key = `${n}:${edge}`;
  let cells = bandCells.get(key);
  if (!cells) {
    const depth = Math.round(n * PIXEL_MATCH.band);
    const kept: number[] = [];
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        const inBand = edge === 'bottom' ? y >= n - depth : edge === 'top' ? y < depth : edge === 'left' ? x < depth : x >= n - depth;
        if (!inBand) kept.push(y * n + x);
      }
    }
    cells = Int32Array.from(kept);
    bandCells.set(key, cells);
  }
  return cells;
}

/** correlation of the `cells` of two samples, read in place (the same operations as correlation over copies of them). */
function cellCorrelation(a: Float64Array, b: Float64Array, cells: Int32Array): number {
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < cells.length; i++) {
    ma += a[cells[i]];
    mb += b[cells[i]];
  }
  ma /= cells.length;
  mb /= cells.length;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < cells.length; i++) {
    const x = a[cells[i]];
    const y = b[cells[i]];
    ab += (x - ma) * (y - mb);
    aa += (x - ma) ** 2;
    bb += (y - mb) ** 2;
  }
  if (aa === 0 || bb === 0) return aa === bb ? 1 : 0;
  return ab / Math.sqrt(aa * bb);
}

/** Layout and detail of two n×n samples (and their details) without the band along the edge where the rest aligns best. */
function bandedMatch(a: Float64Array, b: Float64Array, n: number, [detailA, detailB]: readonly [Float64Array, Float64Array]): PrintMatch['banded'] {
  let best: PrintMatch['banded'] | undefined;
  for (const edge of EDGES) {
    const cells = outsideBand(n, edge);
    const layout = cellCorrelation(a, b, cells);
    if (!best || layout > best.layout) best = { edge, layout, detail: cellCorrelation(detailA, detailB, cells) };
  }
  return best!;
}

/** More than floating-point rounding can add to a correlation past its bound of 1. */
const CORRELATION_ERROR = 1e-9;

/** The first of `indices` with the best layout (the first one wins a tie, as the search order puts it); -1 for none. */
function bestOf(indices: Int32Array, layouts: Float64Array): number {
  let best = -1;
  for (let k = 0; k < indices.length; k++) if (best === -1 || layouts[indices[k]] > layouts[best]) best = indices[k];
  return best;
}

/** The `count` of `indices` with the best layout (the first of equals first), in search order. */
function leading(indices: Int32Array, layouts: Float64Array, count: number): Int32Array {
  const kept = new Uint8Array(indices.length);
  for (let taken = 0; taken < Math.min(count, indices.length); taken++) {
    let best = -1;
    for (let k = 0; k < indices.length; k++) if (!kept[k] && (best === -1 || layouts[indices[k]] > layouts[indices[best]])) best = k;
    kept[best] = 1;
  }
  return indices.filter((_, k) => kept[k] === 1);
}

/**
 * How well two prints match at their best alignment: each one is looked for inside the other at the crops of
 * PIXEL_MATCH (scales and positions); the alignment with the best layout correlation is the one whose detail counts.
 * Every alignment is scored on a coarse grid first; the leading few of the whole pictures and of the crops are scored
 * again on the full grid, which decides.
 */
export function matchPrints(a: PixelPrint, b: PixelPrint): PrintMatch {
  const n = PIXEL_MATCH.grid;
  const { all, wholes, crops } = placementsFor(a, b);
  const coarse = new Float64Array(all.length);
  const layouts = new Float64Array(all.length);
  const fine = (indices: Int32Array) => {
    scoreLayouts(a, b, all, indices, PIXEL_MATCH.coarseGrid, coarse);
    const refined = leading(indices, coarse, PIXEL_MATCH.refined);
    scoreLayouts(a, b, all, refined, n, layouts);
    return bestOf(refined, layouts);
  };
  const whole = fine(wholes);
  // A correlation is at most 1, so when the whole picture aligns within cropMargin of 1 no crop could be named: they are
  // not tried (a resize or a new encoding of a photo, 98 % of them, which were most of the work: the crops are ~250 alignments).
  const cropped = whole !== -1 && layouts[whole] + PIXEL_MATCH.cropMargin > 1 + CORRELATION_ERROR ? -1 : fine(crops);
  // A crop is named only where it aligns clearly better than the whole picture (a resize aligns about as well at 97.5 %).
  const chosen = cropped !== -1 && (whole === -1 || layouts[cropped] > layouts[whole] + PIXEL_MATCH.cropMargin) ? cropped : whole;
  // Detail is read at the chosen alignment only: the layout alone decides which one that is.
  const samplesOf = (index: number) => {
    const { small, region } = all[index];
    const inSmall = wholeOf(small === 'a' ? a : b, n);
    const inBig = sample(small === 'a' ? b : a, ...region, n, scratchOf(alignedSamples, n * n));
    return { small: inSmall.values, big: inBig, details: [inSmall.detail, detailOf(inBig, n, scratchOf(alignedDetails, n * n))] as const };
  };
  const atChosen = samplesOf(chosen);
  const { scale, inside } = all[chosen];
  const match = { layout: layouts[chosen], detail: correlation(...atChosen.details), scale, inside };
  // The band is looked at only where the pictures as found do not match: it could not change a match. (The whole
  // pictures' samples take the chosen alignment's scratch: its detail is read already.)
  if (passesPixelMatch(match)) return match;
  const atWhole = chosen === whole ? atChosen : samplesOf(whole);
  return { ...match, banded: bandedMatch(atWhole.small, atWhole.big, n, atWhole.details) };
}

/** What a pair's tier is decided from: each copy's bytes, size and print. */
export interface TierFacts {
  blobSha256: string;
  width: number | null;
  height: number | null;
  sizeBytes: number | null;
  format: string | null;
  print: PixelPrint | null;
}

export interface PairTier {
  tier: DuplicateTier;
  /** Why, in words a curator reads: "same bytes", "same picture at 60 % size", "similar content, 0.94". */
  reason: string;
}

const percent = (value: number) => `${Math.round(value * 100)} %`;
const kB = (bytes: number) => (bytes < 1_000_000 ? `${Math.round(bytes / 1000)} kB` : `${(bytes / 1_000_000).toFixed(1)} MB`);
const meanOf = (print: PixelPrint) => print.pixels.reduce((sum, value) => sum + value, 0) / print.pixels.length;

/** How `item` differs from `other`, the same picture: a band along an edge, its size, crop, brightness and encoding. */
function derivation(item: TierFacts, other: TierFacts, match: PrintMatch, band: Edge | null): string {
  const parts: string[] = band ? [`but for its ${band} edge`] : [];
  if (match.inside === 'a') parts.push(`cropped to ${percent(match.scale)} of it`);
  else if (match.inside === 'b') parts.push(`uncropped (it is ${percent(match.scale)} of this)`);
  else if (item.width && other.width && Math.abs(item.width / other.width - 1) > 0.01) parts.push(`at ${percent(item.width / other.width)} size`);
  // A band's own brightness (a dark caption strip) would pass for the picture's.
  const brighter = band ? 0 : (meanOf(item.print!) - meanOf(other.print!)) / Math.max(1, meanOf(other.print!));
  if (Math.abs(brighter) >= 0.03) parts.push(`${percent(Math.abs(brighter))} ${brighter > 0 ? 'brighter' : 'darker'}`);
  if (item.format && other.format && item.format !== other.format) parts.push(`as ${item.format.toUpperCase()}`);
  else if (parts.length === 0 && item.sizeBytes && other.sizeBytes) parts.push(`re-encoded (${kB(item.sizeBytes)} against ${kB(other.sizeBytes)})`);
  return parts.length === 0 ? 'same picture, other bytes' : `same picture ${parts.join(', ')}`;
}

/** The same match seen from the other print's side. */
export function reversedMatch(match: PrintMatch): PrintMatch {
  return { ...match, inside: match.inside === 'a' ? 'b' : match.inside === 'b' ? 'a' : 'same' };
}

/**
 * The tier of a pair the embedding found at `similarity`, and why; `item` is described against `other`. `matchOf` lets
 * a caller that tiers both sides of a pair match their prints once (reversedMatch).
 */
export function tierOfPair(item: TierFacts, other: TierFacts, similarity: number, matchOf: (a: PixelPrint, b: PixelPrint) => PrintMatch = matchPrints): PairTier {
  if (item.blobSha256 === other.blobSha256) return { tier: 'exact', reason: 'same bytes' };
  if (item.print && other.print) {
    const match = matchOf(item.print, other.print);
    if (passesPixelMatch(match)) return { tier: 'near_identical', reason: derivation(item, other, match, null) };
    // A caption or watermark strip: the whole pictures match but for a band along one edge.
    if (match.banded && passesPixelMatch(match.banded)) return { tier: 'near_identical', reason: derivation(item, other, { ...match, inside: 'same' }, match.banded.edge) };
  }
  return { tier: 'similar', reason: `similar content, ${similarity.toFixed(2)}` };
}

/** A print sampled whole on PIXEL_MATCH's grid, with its detail, mean and spread: made once per print when many prints of one framing are compared. */
export interface WholeSample {
  values: Float64Array;
  detail: Float64Array;
  mean: number;
  /** The standard deviation of its values: near 0 for a blank picture. */
  spread: number;
}

export function wholeSampleOf(print: PixelPrint): WholeSample {
  const n = PIXEL_MATCH.grid;
  const values = sample(print, 0, 0, print.width, print.height, n);
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const spread = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
  return { values, detail: detailOf(values, n), mean, spread };
}

/** Whether two prints of one framing (frames of one video) are the same picture, compared whole: no crop or band is looked for. */
export function sameWholePicture(a: WholeSample, b: WholeSample): boolean {
  return passesPixelMatch({ layout: correlation(a.values, b.values), detail: correlation(a.detail, b.detail) });
}
