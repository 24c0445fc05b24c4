import sharp from 'sharp';

/** A region as fractions (0-1) of the image's width and height. */
export interface BoundingBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The pixels inside `box` (after EXIF orientation), as PNG; at least 1×1. */
export async function cropToBox(image: Buffer, box: BoundingBox): Promise<Buffer> {
  const oriented = await sharp(image).rotate().toBuffer({ resolveWithObject: true });
  const { width, height } = oriented.info;
  const left = Math.min(width - 1, Math.floor(box.x * width));
  const top = Math.min(height - 1, Math.floor(box.y * height));
  const cropWidth = Math.max(1, Math.min(width - left, Math.round(box.width * width)));
  const cropHeight = Math.max(1, Math.min(height - top, Math.round(box.height * height)));
  return sharp(oriented.data).extract({ left, top, width: cropWidth, height: cropHeight }).png().toBuffer();
}
