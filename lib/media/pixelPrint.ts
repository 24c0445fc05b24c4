import sharp from 'sharp';
import type { PixelPrint } from '../quality/pixelMatch';

/** The longest side of a print: enough detail to tell look-alikes apart, 4 kB at most per media item. */
export const PRINT_SIDE = 64;

/**
 * A thumbnail's print: greyscale, its longest side PRINT_SIDE px (the downscale averages resampling and JPEG noise away).
 * Prints made before 2026-12-06 asked libvips for a Gaussian blur of sigma 0.5: at its minimum amplitude (0.2) that
 * mask is one pixel wide, so they are the same bytes as these.
 */
export async function pixelPrintOf(thumbnail: Buffer): Promise<PixelPrint> {
  const { data, info } = await sharp(thumbnail).flatten({ background: '#ffffff' }).greyscale().resize(PRINT_SIDE, PRINT_SIDE, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pixels: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height) };
}

/** A print as stored (bytea): its width and height in two bytes, then its pixels. */
export function encodePrint(print: PixelPrint): Buffer {
  return Buffer.concat([Buffer.from([print.width, print.height]), Buffer.from(print.pixels)]);
}

export function decodePrint(stored: Buffer): PixelPrint {
  return { width: stored[0], height: stored[1], pixels: new Uint8Array(stored.subarray(2)) };
}
