import sharp from 'sharp';
import { pixelPrintOf } from '../../lib/media/pixelPrint';
import { matchPrints, type PixelPrint } from '../../lib/quality/pixelMatch';
import { startPrintMatchThread } from '../../lib/quality/printMatchThread';
import { photo, PHOTO_NAMES } from '../support/media';

const printOf = async (image: sharp.Sharp) => pixelPrintOf(await image.resize(256, 256, { fit: 'inside' }).jpeg({ quality: 80 }).toBuffer());

describe('print match thread', () => {
  it('gives every pair the match matchPrints gives here, a print named by several pairs included', async () => {
    const prints: PixelPrint[] = [];
    for (const name of PHOTO_NAMES.slice(0, 4)) {
      prints.push(await printOf(sharp(photo(name))));
      const { width, height } = await sharp(photo(name)).metadata();
      prints.push(await printOf(sharp(photo(name)).extract({ left: 0, top: 0, width: Math.round(width! * 0.9), height: Math.round(height! * 0.9) })));
    }
    const pairs = prints.flatMap((a, i) => prints.slice(i + 1).map((b) => [a, b] as const));
    const thread = startPrintMatchThread();
    try {
      expect(await thread.matchAll(pairs)).toEqual(pairs.map(([a, b]) => matchPrints(a, b)));
      expect(await thread.matchAll([])).toEqual([]);
    } finally {
      await thread.close();
    }
    await expect(thread.matchAll(pairs)).rejects.toThrow('closed');
  });
});
