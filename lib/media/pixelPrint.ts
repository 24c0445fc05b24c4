import sharp from 'sharp';
import type { PixelPrint } from '../quality/pixelMatch';

/** The longest side of a print: enough detail to tell look-alikes apart, 4 kB at most per media item. */
export const PRINT_SIDE = 64;

/**
 * Rec. 601 luma of row `y` of an sRGB image (a single-channel image is already grey), rounded into `out` from `at`;
 * returns `total` plus the row's unrounded luma, added pixel by pixel. `| 0` rounds as Math.round does here, 3-4× faster.
 */
export function greyRowInto(data: Buffer, y: number, width: number, channels: number, out: Uint8Array, at: number, total: number): number {
  let i = y * width * channels;
  if (channels >= 3) {
    for (let x = 0; x < width; x++, i += channels) {
      const luma = 0.299 * data[i] + 0.587 * data[i + 1] + 0.114 * data[i + 2];
      out[at + x] = (luma + 0.5) | 0;
      total += luma;
    }
  } else {
    for (let x = 0; x < width; x++, i += channels) {
      out[at + x] = data[i];
      total += data[i];
    }
  }
  return total;
}

/**
 * How an axis of `size` source pixels falls into `cells` print cells: each cell's whole pixels [from, to), and the
 * pixel each cell shares with the next (its index, or -1) with the part of it that is the cell's own.
 */
function boxAxis(size: number, cells: number) {
  const scale = cells / size;
  const from = new Int32Array(cells);
  const to = new Int32Array(cells);
  const shared = new Int32Array(cells).fill(-1);
  const own = new Float64Array(cells);
  for (let cell = 0, x = 0; cell < cells; cell++) {
    from[cell] = x;
    // A pixel is the cell's whole while its end is within the cell (a little slack for rounding).
    while (x < size && (x + 1) * scale <= cell + 1 + 1e-9) x++;
    to[cell] = x;
    if (x < size && cell + 1 < cells) {
      shared[cell] = x;
      own[cell] = cell + 1 - x * scale;
      x++;
    }
  }
  return { from, to, shared, own, scale };
}

/**
 * A print made a grey row at a time: each print pixel is the mean of the source area it covers (a box filter, a
 * pixel on a border split between its cells), its longest side PRINT_SIDE px, never upscaled. Fed by the ingest's
 * one decode (the 512 px sample, in the same pass as its quality figures), so the pixel check reads no thumbnail.
 */
export function createPrintBuilder(width: number, height: number) {
  const long = Math.max(width, height);
  const fit = (side: number) => (long <= PRINT_SIDE ? side : Math.max(1, Math.round((side * PRINT_SIDE) / long)));
  const [outWidth, outHeight] = [fit(width), fit(height)];
  const xs = boxAxis(width, outWidth);
  const ys = boxAxis(height, outHeight);
  // The cells of each source row and column, in print pixels: each whole pixel weighs scale, a shared one its parts.
  const rowOf = new Int32Array(height);
  for (let cell = 0; cell < outHeight; cell++) {
    for (let y = ys.from[cell]; y < ys.to[cell]; y++) rowOf[y] = cell;
    if (ys.shared[cell] >= 0) rowOf[ys.shared[cell]] = cell;
  }
  const sums = new Float64Array(outWidth * outHeight);
  const row = new Float64Array(outWidth);
  const { to, shared, own, scale } = xs;
  return {
    /** Adds source row `y`, grey values at `grey[at..at+width)`. */
    addRow(grey: Uint8Array, at: number, y: number): void {
      let carry = 0;
      let x = at;
      for (let cell = 0; cell < outWidth; cell++) {
        // Whole pixels summed as integers, then weighed once.
        let whole = 0;
        for (const end = at + to[cell]; x < end; x++) whole += grey[x];
        let value = carry + whole * scale;
        carry = 0;
        const part = shared[cell];
        if (part >= 0) {
          const split = grey[at + part];
          value += split * own[cell];
          carry = split * (scale - own[cell]);
          x++;
        }
        row[cell] = value;
      }
      const cell = rowOf[y];
      const isShared = ys.shared[cell] === y;
      const upper = isShared ? ys.own[cell] : ys.scale;
      const top = cell * outWidth;
      for (let i = 0; i < outWidth; i++) sums[top + i] += row[i] * upper;
      if (isShared) {
        const lower = ys.scale - upper;
        for (let i = 0; i < outWidth; i++) sums[top + outWidth + i] += row[i] * lower;
      }
    },
    print(): PixelPrint {
      const pixels = new Uint8Array(outWidth * outHeight);
      for (let i = 0; i < pixels.length; i++) pixels[i] = Math.min(255, (sums[i] + 0.5) | 0);
      return { width: outWidth, height: outHeight, pixels };
    },
  };
}

/** The print of sRGB pixels (a decoded image, alpha already flattened): their Rec. 601 luma, box-downscaled. */
export function printOfPixels(data: Buffer, width: number, height: number, channels: number): PixelPrint {
  const builder = createPrintBuilder(width, height);
  const grey = new Uint8Array(width);
  for (let y = 0; y < height; y++) {
    greyRowInto(data, y, width, channels, grey, 0, 0);
    builder.addRow(grey, 0, y);
  }
  return builder.print();
}

/**
 * A thumbnail's print, for media ingested before prints were made by the ingest: the same making, from the
 * thumbnail's pixels flattened on white instead of the sample's.
 */
export async function pixelPrintOf(thumbnail: Buffer): Promise<PixelPrint> {
  const { data, info } = await sharp(thumbnail).flatten({ background: '#ffffff' }).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return printOfPixels(data, info.width, info.height, info.channels);
}

/** A print as stored (bytea): its width and height in two bytes, then its pixels. */
export function encodePrint(print: PixelPrint): Buffer {
  return Buffer.concat([Buffer.from([print.width, print.height]), Buffer.from(print.pixels)]);
}

export function decodePrint(stored: Buffer): PixelPrint {
  return { width: stored[0], height: stored[1], pixels: new Uint8Array(stored.subarray(2)) };
}
