import sharp from 'sharp';

/** A region as fractions (0-1) of the image's width and height. */
export interface BoundingBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The pixels inside each box (after EXIF orientation), as lossless PNGs of at least 1×1. The image is
 * decoded once for all its boxes (a photo of a crowd has twenty).
 */
export async function cropToBoxes(image: Buffer, boxes: readonly BoundingBox[]): Promise<Buffer[]> {
  if (boxes.length === 0) return [];
  const { data, info } = await sharp(image).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  return Promise.all(
    boxes.map((box) => {
      const left = Math.min(width - 1, Math.floor(box.x * width));
      const top = Math.min(height - 1, Math.floor(box.y * height));
      const cropWidth = Math.max(1, Math.min(width - left, Math.round(box.width * width)));
      const cropHeight = Math.max(1, Math.min(height - top, Math.round(box.height * height)));
      return sharp(data, { raw: { width, height, channels } }).extract({ left, top, width: cropWidth, height: cropHeight }).png({ compressionLevel: 1 }).toBuffer();
    }),
  );
}

/** The pixels inside `box` (after EXIF orientation), as PNG; at least 1×1. */
export async function cropToBox(image: Buffer, box: BoundingBox): Promise<Buffer> {
  const [crop] = await cropToBoxes(image, [box]);
  return crop;
}
