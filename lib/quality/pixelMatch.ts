/**
 * Duplicate tiers: exact (the same bytes), near-identical (a pixel-level check on the thumbnails confirms the
 * embedding: the same picture resized, re-encoded, cropped a little or brightness-shifted) and similar (the
 * embedding alone). Pure: prints are made from thumbnails by lib/media/pixelPrint.ts. See docs/decisions.md.
 */

export type DuplicateTier = 'exact' | 'near_identical' | 'similar';
export const DUPLICATE_TIERS: readonly DuplicateTier[] = ['exact', 'near_identical', 'similar'];
/** What duplicate review, Accept all and the `duplicates` issue mean unless `similar` is asked for. */
export const DEFAULT_TIERS: readonly DuplicateTier[] = ['exact', 'near_identical'];

/** A greyscale copy of a thumbnail, its longest side PRINT_SIDE px, lightly blurred. */
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
  /** How much better a crop must align than the whole picture to be taken for one. */
  cropMargin: 0.005,
};

export interface PrintMatch {
  layout: number;
  detail: number;
  /** The share of the other print's side this one covers at the best alignment (1: the whole picture). */
  scale: number;
  /** Which print was found inside the other: 'a', 'b', or 'same' when neither is a crop. */
  inside: 'a' | 'b' | 'same';
}

function sample(print: PixelPrint, x0: number, y0: number, w: number, h: number, n: number): Float64Array {
  const out = new Float64Array(n * n);
  const { width, height, pixels } = print;
  for (let j = 0; j < n; j++) {
    const y = Math.min(height - 1, Math.max(0, y0 + ((j + 0.5) * h) / n - 0.5));
    const yi = Math.floor(y);
    const fy = y - yi;
    const y1 = Math.min(height - 1, yi + 1);
    for (let i = 0; i < n; i++) {
      const x = Math.min(width - 1, Math.max(0, x0 + ((i + 0.5) * w) / n - 0.5));
      const xi = Math.floor(x);
      const fx = x - xi;
      const x1 = Math.min(width - 1, xi + 1);
      out[j * n + i] =
        pixels[yi * width + xi] * (1 - fx) * (1 - fy) + pixels[yi * width + x1] * fx * (1 - fy) + pixels[y1 * width + xi] * (1 - fx) * fy + pixels[y1 * width + x1] * fx * fy;
    }
  }
  return out;
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

/** Each value minus the mean of its 5×5 neighbourhood: the detail a look-alike does not share. */
function detailOf(values: Float64Array, n: number): Float64Array {
  const out = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      let sum = 0;
      let count = 0;
      for (let y = Math.max(0, j - 2); y <= Math.min(n - 1, j + 2); y++) {
        for (let x = Math.max(0, i - 2); x <= Math.min(n - 1, i + 2); x++) {
          sum += values[y * n + x];
          count++;
        }
      }
      out[j * n + i] = values[j * n + i] - sum / count;
    }
  }
  return out;
}

/**
 * How well two prints match at their best alignment: each one is looked for inside the other at the crops of
 * PIXEL_MATCH (scales and positions); the alignment with the best layout correlation is the one whose detail counts.
 */
export function matchPrints(a: PixelPrint, b: PixelPrint): PrintMatch {
  const n = PIXEL_MATCH.grid;
  let whole: PrintMatch | undefined;
  let cropped: PrintMatch | undefined;
  for (const [small, big, name] of [
    [a, b, 'a'],
    [b, a, 'b'],
  ] as const) {
    const aspect = small.width / small.height;
    const reference = sample(small, 0, 0, small.width, small.height, n);
    for (const scale of PIXEL_MATCH.scales) {
      let w = big.width * scale;
      let h = w / aspect;
      if (h > big.height * scale) {
        h = big.height * scale;
        w = h * aspect;
      }
      for (const fx of PIXEL_MATCH.offsets) {
        for (const fy of PIXEL_MATCH.offsets) {
          const region = sample(big, (big.width - w) * fx, (big.height - h) * fy, w, h, n);
          const layout = correlation(reference, region);
          const covers = Math.max(w / big.width, h / big.height);
          const isWhole = covers > 0.99;
          const best = isWhole ? whole : cropped;
          if (best && layout <= best.layout) continue;
          const match: PrintMatch = { layout, detail: correlation(detailOf(reference, n), detailOf(region, n)), scale: covers, inside: isWhole ? 'same' : name };
          if (isWhole) whole = match;
          else cropped = match;
        }
      }
    }
  }
  // A crop is named only where it aligns clearly better than the whole picture (a resize aligns about as well at 97.5 %).
  return cropped && (!whole || cropped.layout > whole.layout + PIXEL_MATCH.cropMargin) ? cropped : whole!;
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

/** How `item` differs from `other`, the same picture: its size, crop, brightness and encoding. */
function derivation(item: TierFacts, other: TierFacts, match: PrintMatch): string {
  const parts: string[] = [];
  if (match.inside === 'a') parts.push(`cropped to ${percent(match.scale)} of it`);
  else if (match.inside === 'b') parts.push(`uncropped (it is ${percent(match.scale)} of this)`);
  else if (item.width && other.width && Math.abs(item.width / other.width - 1) > 0.01) parts.push(`at ${percent(item.width / other.width)} size`);
  const brighter = (meanOf(item.print!) - meanOf(other.print!)) / Math.max(1, meanOf(other.print!));
  if (Math.abs(brighter) >= 0.03) parts.push(`${percent(Math.abs(brighter))} ${brighter > 0 ? 'brighter' : 'darker'}`);
  if (item.format && other.format && item.format !== other.format) parts.push(`as ${item.format.toUpperCase()}`);
  else if (parts.length === 0 && item.sizeBytes && other.sizeBytes) parts.push(`re-encoded (${kB(item.sizeBytes)} against ${kB(other.sizeBytes)})`);
  return parts.length === 0 ? 'same picture, other bytes' : `same picture ${parts.join(', ')}`;
}

/** The tier of a pair the embedding found at `similarity`, and why; `item` is described against `other`. */
export function tierOfPair(item: TierFacts, other: TierFacts, similarity: number): PairTier {
  if (item.blobSha256 === other.blobSha256) return { tier: 'exact', reason: 'same bytes' };
  if (item.print && other.print) {
    const match = matchPrints(item.print, other.print);
    if (match.layout >= PIXEL_MATCH.layout && match.detail >= PIXEL_MATCH.detail) return { tier: 'near_identical', reason: derivation(item, other, match) };
  }
  return { tier: 'similar', reason: `similar content, ${similarity.toFixed(2)}` };
}
