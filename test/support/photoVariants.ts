import path from 'node:path';
import sharp from 'sharp';
import { photo, PHOTO_NAMES } from './media';

/**
 * Each real photo as it is, tinted, cropped and blurred (near-duplicates and looser likenesses), written as JPEGs
 * into `dir`: the files per photo name, in PHOTO_NAMES order.
 */
export async function writePhotoVariants(dir: string): Promise<Map<string, string[]>> {
  const variantsOf = new Map<string, string[]>();
  for (const name of PHOTO_NAMES) {
    const source = sharp(photo(name));
    const { width, height } = await source.metadata();
    const variants = {
      original: source.clone(),
      tinted: source.clone().tint('#ffa080'),
      cropped: source.clone().extract({ left: 0, top: 0, width: Math.floor(width! * 0.7), height: Math.floor(height! * 0.7) }),
      blurred: source.clone().blur(6),
    };
    const files: string[] = [];
    for (const [variant, image] of Object.entries(variants)) {
      const file = path.join(dir, `${name}_${variant}.jpg`);
      await image.jpeg().toFile(file);
      files.push(file);
    }
    variantsOf.set(name, files);
  }
  return variantsOf;
}
