import sharp from 'sharp';

export const THUMBNAIL_SIZE = 256;
const QUALITY_SAMPLE_SIZE = 512;

export interface ImageFacts {
  width: number;
  height: number;
  format: string;
  /** WebP, longest side THUMBNAIL_SIZE. */
  thumbnail: Buffer;
  /** Mean luminance 0-255. */
  meanLuma: number;
  /** Variance of the Laplacian of the grey image scaled to 512 px: low means blurry. */
  sharpness: number;
}

export class UndecodableMediaError extends Error {}

function laplacianVariance(pixels: Buffer, width: number, height: number): number {
  let sum = 0;
  let sumSquares = 0;
  let count = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const value = pixels[i - width] + pixels[i + width] + pixels[i - 1] + pixels[i + 1] - 4 * pixels[i];
      sum += value;
      sumSquares += value * value;
      count++;
    }
  }
  if (count === 0) return 0;
  const mean = sum / count;
  return sumSquares / count - mean * mean;
}

/** Decodes an image (path or bytes), honouring EXIF orientation; throws UndecodableMediaError when it cannot. */
export async function analyzeImage(input: string | Buffer): Promise<ImageFacts> {
  try {
    const source = sharp(input, { failOn: 'error', limitInputPixels: 268_402_689 }).rotate();
    const metadata = await source.metadata();
    const swap = (metadata.orientation ?? 1) >= 5;
    const width = swap ? metadata.height : metadata.width;
    const height = swap ? metadata.width : metadata.height;
    if (!width || !height || !metadata.format) throw new Error('no dimensions');
    // Decode once, to a 512 px RGB sample; the thumbnail and the quality figures both come from it.
    const sample = await source
      .resize(QUALITY_SAMPLE_SIZE, QUALITY_SAMPLE_SIZE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { width: sampleWidth, height: sampleHeight, channels } = sample.info;
    const thumbnail = await sharp(sample.data, { raw: { width: sampleWidth, height: sampleHeight, channels } })
      .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    const grey = Buffer.alloc(sampleWidth * sampleHeight);
    let total = 0;
    for (let p = 0, i = 0; p < grey.length; p++, i += channels) {
      // Rec. 601 luma of the sRGB pixel (a single-channel sample is already grey).
      const luma = channels >= 3 ? 0.299 * sample.data[i] + 0.587 * sample.data[i + 1] + 0.114 * sample.data[i + 2] : sample.data[i];
      grey[p] = Math.round(luma);
      total += luma;
    }
    return {
      width,
      height,
      format: metadata.format,
      thumbnail,
      meanLuma: total / grey.length,
      sharpness: laplacianVariance(grey, sampleWidth, sampleHeight),
    };
  } catch (error) {
    throw new UndecodableMediaError((error as Error).message);
  }
}
