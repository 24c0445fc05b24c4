import sharp from 'sharp';
import type { PixelPrint } from '../quality/pixelMatch';
import { createPrintBuilder, greyRowInto } from './pixelPrint';

export const THUMBNAIL_SIZE = 256;
const QUALITY_SAMPLE_SIZE = 512;
/** The most a decode grows past the 512 px sample so a model input of a very long image is still downscaled. */
const MAX_MODEL_SAMPLE_SIDE = 4096;

/** How an image model wants its pixels (the manifest's `size` and `resize`, see lib/ml/imageEncoder). */
export interface ModelInputSpec {
  size: number;
  /** fill: squash to size x size; center-crop: short side to size, then crop the centre. */
  resize: 'fill' | 'center-crop';
}

export interface ImageFacts {
  width: number;
  height: number;
  format: string;
  /** JPEG, longest side THUMBNAIL_SIZE. */
  thumbnail: Buffer;
  /** Mean luminance 0-255. */
  meanLuma: number;
  /** Variance of the Laplacian of the grey image scaled to 512 px: low means blurry. */
  sharpness: number;
  /** The pixel print of the same grey image (lib/media/pixelPrint.ts), for the duplicate pixel check. */
  print: PixelPrint;
  /**
   * The model input (`size` x `size` x 3 RGB bytes, as `imagePixels` makes it) when a spec was given:
   * the embedding stage reads it instead of decoding the image a second time.
   */
  modelInput?: Buffer;
}

export class UndecodableMediaError extends Error {}

/** Three rows of grey values, reused by every call (statistics are computed on the event loop, one image at a time). */
let greyRows = new Uint8Array(0);

/**
 * Mean Rec. 601 luma of an sRGB sample and the variance of the Laplacian of its grey image (luma rounded;
 * a single-channel sample is already grey), in one pass over three rolling rows instead of a whole grey copy, and
 * the sample's pixel print from the same grey rows. In JavaScript because it is the cheapest way measured: 1.2 CPU ms
 * on a 512 px sample, against 2.7 ms for libvips' convolution alone, 5.5 ms for a grey recomb then a convolution and
 * 10 ms for sharp's stats() (2026-12-06, docs/decisions.md "Image quality figures in JavaScript").
 */
function pixelStatistics(data: Buffer, width: number, height: number, channels: number): { meanLuma: number; sharpness: number; print: PixelPrint } {
  if (greyRows.length < 3 * width) greyRows = new Uint8Array(3 * width);
  const rows = greyRows;
  const print = createPrintBuilder(width, height);
  let total = 0;
  let sum = 0;
  let sumSquares = 0;
  for (let y = 0; y < height; y++) {
    const row = (y % 3) * width;
    total = greyRowInto(data, y, width, channels, rows, row, total);
    print.addRow(rows, row, y);
    if (y < 2) continue;
    // The Laplacian of the row above this one, now that its neighbours below are known.
    const above = ((y - 2) % 3) * width;
    const middle = ((y - 1) % 3) * width;
    for (let x = 1; x < width - 1; x++) {
      const value = rows[above + x] + rows[row + x] + rows[middle + x - 1] + rows[middle + x + 1] - 4 * rows[middle + x];
      sum += value;
      sumSquares += value * value;
    }
  }
  const count = Math.max(0, width - 2) * Math.max(0, height - 2);
  const mean = count === 0 ? 0 : sum / count;
  return { meanLuma: total / (width * height), sharpness: count === 0 ? 0 : sumSquares / count - mean * mean, print: print.print() };
}

type RawImage = { data: Buffer; info: { width: number; height: number; channels: 1 | 2 | 3 | 4 } };

const rawOf = (image: RawImage) => ({ raw: { width: image.info.width, height: image.info.height, channels: image.info.channels } });

const modelFit = (spec: ModelInputSpec) => (spec.resize === 'fill' ? { fit: 'fill' as const } : { fit: 'cover' as const, position: 'centre' });

/**
 * An image (path or bytes) decoded for a model on its own: EXIF rotation applied, resized as the
 * manifest says, alpha dropped, sRGB; `size` x `size` x 3 RGB bytes. The embedding stage's fallback
 * for media without a prepared input (`imagePixels`).
 */
export function decodeModelInput(image: string | Buffer, spec: ModelInputSpec): Promise<Buffer> {
  return sharp(image).rotate().removeAlpha().toColourspace('srgb').resize(spec.size, spec.size, modelFit(spec)).raw().toBuffer();
}

/** The same from the decoded sample of an opaque image. */
function modelPixels(sample: RawImage, spec: ModelInputSpec): Promise<Buffer> {
  return sharp(sample.data, rawOf(sample)).resize(spec.size, spec.size, modelFit(spec)).toColourspace('srgb').raw().toBuffer();
}

/**
 * How long the decoded sample's longest side is: 512 px (the thumbnail and quality figures), or more
 * for a very elongated image so that its short side still reaches the model's size (a panorama is
 * downscaled to the model input, never upscaled from a strip).
 */
function sampleSide(width: number, height: number, spec: ModelInputSpec | undefined): number {
  if (!spec) return QUALITY_SAMPLE_SIZE;
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  return Math.min(MAX_MODEL_SAMPLE_SIDE, Math.max(QUALITY_SAMPLE_SIZE, Math.ceil((spec.size * long) / short)));
}

/**
 * The JPEG file to decode with libjpeg's DCT scaling at the largest of 1/2, 1/4, 1/8 that still leaves the
 * sample its `side` (a libvips load option after the path). sharp's own shrink-on-load skips an exact 2x, 4x or
 * 8x shrink (e.g. 1024 px to 512) and decodes at twice the size then; from 24x on it scales by 1/8 itself and
 * would reload the file by its path, so it is left to.
 */
function scaledJpegPath(path: string, long: number, side: number): string {
  const shrink = long / side;
  const scale = shrink >= 8 ? 8 : shrink >= 4 ? 4 : shrink >= 2 ? 2 : 1;
  return scale === 1 || shrink >= 24 ? path : `${path}[shrink=${scale}]`;
}

/**
 * Decodes an image (path or bytes) once, honouring EXIF orientation, and makes from that one
 * shrink-on-load decode the thumbnail, the quality figures and, given a model's input spec, the
 * model input. Throws UndecodableMediaError when it cannot.
 */
export async function analyzeImage(input: string | Buffer, modelInput?: ModelInputSpec): Promise<ImageFacts> {
  try {
    const options = { failOn: 'error', limitInputPixels: 268_402_689 } as const;
    const metadata = await sharp(input, options).metadata();
    const swap = (metadata.orientation ?? 1) >= 5;
    const width = swap ? metadata.height : metadata.width;
    const height = swap ? metadata.width : metadata.height;
    if (!width || !height || !metadata.format) throw new Error('no dimensions');
    // The one decode: an sRGB sample, alpha kept (the thumbnail and the quality figures flatten it
    // on white; flattening after the resize is the same sum).
    const side = sampleSide(width, height, modelInput);
    const scaled = typeof input === 'string' && metadata.format === 'jpeg' ? scaledJpegPath(input, Math.max(width, height), side) : input;
    const decoded = (await sharp(scaled, options)
      .rotate()
      .resize(side, side, { fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true })) as RawImage;
    const hasAlpha = decoded.info.channels === 2 || decoded.info.channels === 4;
    let sample = decoded;
    if (hasAlpha || side > QUALITY_SAMPLE_SIZE) {
      let view = sharp(decoded.data, rawOf(decoded));
      if (side > QUALITY_SAMPLE_SIZE) view = view.resize(QUALITY_SAMPLE_SIZE, QUALITY_SAMPLE_SIZE, { fit: 'inside', withoutEnlargement: true });
      if (hasAlpha) view = view.flatten({ background: '#ffffff' });
      sample = (await view.raw().toBuffer({ resolveWithObject: true })) as RawImage;
    }
    const { width: sampleWidth, height: sampleHeight, channels } = sample.info;
    const encoded = Promise.all([
      // JPEG: 1.5 ms less CPU per image than WebP at effort 2, for 27 % more bytes; Huffman tables not optimised
      // (the same pixels, 0.3 ms less, 6 % more bytes) (docs/decisions.md).
      sharp(sample.data, rawOf(sample)).resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 80, optimiseCoding: false }).toBuffer(),
      // An image with alpha gets its model input decoded on its own: the model sees the colour of
      // transparent pixels after a premultiplied resize, which a resampled sample cannot reproduce
      // (transparent images are rare: the second decode costs little overall).
      modelInput ? (hasAlpha ? decodeModelInput(input, modelInput) : modelPixels(decoded, modelInput)) : undefined,
    ]);
    // Computed while libvips encodes the thumbnail and resizes the model input in its threads.
    const statistics = pixelStatistics(sample.data, sampleWidth, sampleHeight, channels);
    const [thumbnail, modelInputPixels] = await encoded;
    return {
      width,
      height,
      format: metadata.format,
      thumbnail,
      ...statistics,
      ...(modelInputPixels ? { modelInput: modelInputPixels } : {}),
    };
  } catch (error) {
    throw new UndecodableMediaError((error as Error).message);
  }
}
