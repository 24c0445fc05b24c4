import sharp from 'sharp';
import type { PixelPrint } from '../quality/pixelMatch';

/** The longest side of a print: enough detail to tell look-alikes apart, 4 kB at most per media item. */
export const PRINT_SIDE = 64;

/** A thumbnail's print: greyscale, its longest side PRINT_SIDE px, lightly blurred so resampling and JPEG noise cancel out. */
export async function pixelPrintOf(thumbnail: Buffer): Promise<PixelPrint> {
  const { data, info } = await sharp(thumbnail).flatten({ background: '#ffffff' }).greyscale().resize(PRINT_SIDE, PRINT_SIDE, { fit: 'inside' }).blur(0.5).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pixels: new Uint8Array(data.buffer, data.byteOffset, info.width * info.height) };
}

/** A print as stored (bytea): its width and height in two bytes, then its pixels. */
export function encodePrint(print: PixelPrint): Buffer {
  return Buffer.concat([Buffer.from([print.width, print.height]), Buffer.from(print.pixels)]);
}

export function decodePrint(stored: Buffer): PixelPrint {
  return { width: stored[0], height: stored[1], pixels: new Uint8Array(stored.subarray(2)) };
}
