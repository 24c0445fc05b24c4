import { createHash } from 'node:crypto';
import fs from 'node:fs';
import sharp from 'sharp';
import { analyzeImage } from '../../lib/media/imageAnalysis';
import { encodePrint, decodePrint } from '../../lib/media/pixelPrint';
import { tierOfPair, type TierFacts } from '../../lib/quality/pixelMatch';
import path from 'node:path';
import { photo, photosDir } from '../support/media';

/** A copy's tier facts as the worker has them: its bytes' hash, size, and the print its ingest made (as stored). */
async function factsOf(bytes: Buffer): Promise<TierFacts> {
  const { width, height, format, print } = await analyzeImage(bytes);
  const hash = createHash('sha256').update(bytes).digest('hex');
  return { blobSha256: hash, width, height, sizeBytes: bytes.length, format, print: decodePrint(encodePrint(print)) };
}

describe('duplicate tiers from prints', () => {
  it('names the same bytes, the same picture resized, re-encoded, cropped or brightened, and a look-alike', async () => {
    const original = fs.readFileSync(photo('coffee'));
    const { width, height } = await sharp(original).metadata();
    const facts = await factsOf(original);
    const tierOf = async (bytes: Buffer) => tierOfPair(await factsOf(bytes), facts, 0.95);
    expect(await tierOf(original)).toEqual({ tier: 'exact', reason: 'same bytes' });
    expect(await tierOf(await sharp(original).resize(Math.round(width! * 0.6)).jpeg({ quality: 90 }).toBuffer())).toEqual({ tier: 'near_identical', reason: 'same picture at 60 % size' });
    expect(await tierOf(await sharp(original).jpeg({ quality: 40 }).toBuffer())).toEqual({ tier: 'near_identical', reason: expect.stringMatching(/^same picture re-encoded \(\d+ kB against \d+ kB\)$/) });
    const crop = await sharp(original).extract({ left: 0, top: 0, width: Math.round(width! * 0.95), height: Math.round(height! * 0.95) }).jpeg({ quality: 95 }).toBuffer();
    expect(await tierOf(crop)).toEqual({ tier: 'near_identical', reason: expect.stringMatching(/^same picture cropped to 9\d % of it/) });
    expect(await tierOf(await sharp(original).modulate({ brightness: 1.2 }).jpeg().toBuffer())).toEqual({ tier: 'near_identical', reason: expect.stringMatching(/^same picture \d+ % brighter$/) });
    expect(await tierOf(fs.readFileSync(photo('chelsea')))).toEqual({ tier: 'similar', reason: 'similar content, 0.95' });
  });

  it('names a copy with a caption band near-identical, but for that edge', async () => {
    // Each was similar when compared whole: the band took its layout or its detail below the thresholds.
    for (const name of ['chelsea', 'rocket', 'camera', 'motorcycle_left']) {
      const original = fs.readFileSync(photo(name));
      const { width, height } = await sharp(original).metadata();
      const band = Math.round(height! * 0.12);
      const caption = Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="0" y="${height! - band}" width="${width}" height="${band}" fill="black" fill-opacity="0.45"/>` +
          `<text x="10" y="${height! - Math.round(band * 0.3)}" font-family="sans-serif" font-size="${Math.round(band * 0.6)}" fill="white">Summer trip, day 3</text></svg>`,
      );
      const captioned = await sharp(original).composite([{ input: caption }]).jpeg({ quality: 85 }).toBuffer();
      expect(tierOfPair(await factsOf(captioned), await factsOf(original), 0.95)).toEqual({ tier: 'near_identical', reason: expect.stringMatching(/^same picture but for its bottom edge/) });
    }
  });

  it('keeps distinct look-alikes of one class similar, with or without an edge band', async () => {
    const lookalike = async (name: string) => factsOf(await sharp(path.join(photosDir, '..', 'lookalikes', `${name}.png`)).resize(224, 224, { kernel: 'lanczos3' }).png().toBuffer());
    for (const [a, b] of [['trouser-a', 'trouser-b'], ['dress-a', 'dress-b']]) {
      expect(tierOfPair(await lookalike(a), await lookalike(b), 0.93)).toEqual({ tier: 'similar', reason: 'similar content, 0.93' });
    }
  });
});
