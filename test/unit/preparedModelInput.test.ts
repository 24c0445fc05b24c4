import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { encodeImageBlobs } from '../../services/imageEncoding';
import { loadConfig } from '../../lib/config';
import { analyzeImage } from '../../lib/media/imageAnalysis';
import { imagePixels, loadImageEncoder, type ImageEncoder } from '../../lib/ml/imageEncoder';
import { matchPrints } from '../../lib/quality/pixelMatch';
import { sha256Hex } from '../../lib/sha256';
import { createLocalObjectStore } from '../../lib/storage/localObjectStore';
import { blobKey, modelInputKey } from '../../lib/storage/objectStore';

const photosDir = path.join(__dirname, '..', 'fixtures', 'photos');
const photos = fs.readdirSync(photosDir).filter((name) => name.endsWith('.jpg'));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);

/**
 * The ingest's one decode makes the model input too (issue 15); the embeddings from it must stay
 * those of the separate decode the embedding stage did before, so the calibrated thresholds hold.
 */
describe("the model input prepared by the ingest's one decode", () => {
  let encoder: ImageEncoder;
  /** The fp32 model, on which the thresholds were calibrated: the reference for how close the two decodes are. */
  let fp32: ImageEncoder;
  /** Larger variants, so shrink-on-load, EXIF rotation, alpha and colourspaces are all exercised. */
  let variants: Array<[string, Buffer | string]>;
  /** JPEG files a DCT-scaled decode gives the sample exactly (1024 px: 1/2, 2048 px: 1/4), beside their bytes. */
  let scaledFiles: Array<{ file: string; bytes: Buffer }>;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'scaled-jpeg-'));

  beforeAll(async () => {
    const config = loadConfig({});
    encoder = await loadImageEncoder(config.models.dir, config.models.imageModel, 2);
    fp32 = await loadImageEncoder(config.models.dir, 'efficientnet-lite0', 2);
    const chelsea = fs.readFileSync(path.join(photosDir, 'chelsea.jpg'));
    const big = await sharp(chelsea).resize(3000, 2000, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
    const cutout = Buffer.alloc(3000 * 2000);
    for (let y = 500; y < 1500; y++) cutout.fill(255, y * 3000 + 700, y * 3000 + 2200);
    variants = [
      ['3000x2000 JPEG', big],
      ['EXIF orientation 6', await sharp(big).withMetadata({ orientation: 6 }).jpeg().toBuffer()],
      ['greyscale', await sharp(big).greyscale().jpeg().toBuffer()],
      ['CMYK JPEG', await sharp(big).toColourspace('cmyk').jpeg().toBuffer()],
      ['16-bit PNG', await sharp(big).toColourspace('rgb16').png().toBuffer()],
      ['panorama 6000x800', await sharp(big).resize(6000, 800, { fit: 'fill' }).jpeg().toBuffer()],
      ['half-transparent PNG', await sharp(big).ensureAlpha(0.5).png().toBuffer()],
      ['cut-out PNG', await sharp(big).joinChannel(cutout, { raw: { width: 3000, height: 2000, channels: 1 } }).png().toBuffer()],
      ['tiny PNG', await sharp(chelsea).resize(100, 60).png().toBuffer()],
    ];
    scaledFiles = [];
    for (const [name, image] of [
      ['1024x683.jpg', sharp(big).resize(1024, 683)],
      ['2048x1365 EXIF orientation 6.jpg', sharp(big).resize(2048, 1365).withMetadata({ orientation: 6 })],
    ] as const) {
      const file = path.join(scratch, name);
      const bytes = await image.jpeg({ quality: 90 }).toBuffer();
      fs.writeFileSync(file, bytes);
      scaledFiles.push({ file, bytes });
      variants.push([`${name} file`, file]);
    }
  });
  afterAll(async () => {
    fs.rmSync(scratch, { recursive: true, force: true });
    await Promise.all([encoder.close(), fp32.close()]);
  });

  /** Where the embeddings of the prepared inputs are further than `least` from those of the separate decode, or name another top class. */
  async function disagreements(model: ImageEncoder, least: number) {
    const inputs: Array<[string, string | Buffer]> = [...photos.map((name): [string, string] => [name, path.join(photosDir, name)]), ...variants];
    const decoded = await model.encodeAndClassify(inputs.map(([, input]) => input));
    const facts = await Promise.all(inputs.map(([, input]) => analyzeImage(input, model.input)));
    const prepared = await model.encodePixels(facts.map((fact) => fact.modelInput!));
    expect(prepared[0].classes).toHaveLength(decoded[0].classes.length);
    const report = inputs.map(([name], i) => ({
      name,
      cosine: Number(cosine(prepared[i].vector, decoded[i].vector).toFixed(4)),
      sameClass: prepared[i].classes[0].index === decoded[i].classes[0].index,
    }));
    return report.filter((row) => row.cosine < least || !row.sameClass);
  }

  it('embeds every fixture photo and variant as the separate decode did (fp32: cosine >= 0.999, same top class)', async () => {
    expect(await disagreements(fp32, 0.999)).toEqual([]);
  });

  it('keeps them as close with the default int8 model, which moves small pixel differences a little more (cosine >= 0.995)', async () => {
    expect(encoder.modelId).toBe('efficientnet-lite0-imagenet-int8@1');
    expect(await disagreements(encoder, 0.995)).toEqual([]);
  });

  it('keeps the model input of an image with alpha exactly as the separate decode made it', async () => {
    for (const [, image] of variants.filter(([name]) => name.endsWith('transparent PNG') || name.startsWith('cut-out'))) {
      expect((await analyzeImage(image, encoder.input)).modelInput!.equals(await imagePixels(image, encoder.input))).toBe(true);
    }
  });

  it('leaves the thumbnail and the quality figures of an opaque image as they were without a model spec', async () => {
    const [, image] = variants[1];
    const withInput = await analyzeImage(image, encoder.input);
    const without = await analyzeImage(image);
    expect(without.modelInput).toBeUndefined();
    expect(withInput.modelInput).toHaveLength(encoder.input.size * encoder.input.size * 3);
    expect({ ...withInput, modelInput: undefined }).toEqual({ ...without, modelInput: undefined });
    expect([withInput.width, withInput.height]).toEqual([2000, 3000]);
  });

  it("decodes a JPEG file at the DCT scale its sample needs, with the full decode's size, thumbnail and figures", async () => {
    for (const { file, bytes } of scaledFiles) {
      // The same bytes in memory are decoded at the scale sharp chooses itself (twice the sample, then resized).
      const [scaled, full] = await Promise.all([analyzeImage(file, encoder.input), analyzeImage(bytes, encoder.input)]);
      expect([scaled.width, scaled.height, scaled.format]).toEqual([full.width, full.height, full.format]);
      const thumbnails = await Promise.all([scaled, full].map(async ({ thumbnail }) => (({ width, height }) => [width, height])(await sharp(thumbnail).metadata())));
      expect(thumbnails[0]).toEqual(thumbnails[1]);
      expect(Math.abs(scaled.meanLuma - full.meanLuma)).toBeLessThan(0.5);
      expect(scaled.sharpness / full.sharpness).toBeGreaterThan(0.8);
      expect(scaled.sharpness / full.sharpness).toBeLessThan(1.25);
      expect(matchPrints(scaled.print, full.print).detail).toBeGreaterThan(0.99);
    }
  });

  it('embeds from the stored input, and decodes the original of media indexed before there was one', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'model-inputs-'));
    try {
      const store = createLocalObjectStore(root);
      const images = await Promise.all(['coffee.jpg', 'rocket.jpg'].map((name) => fs.promises.readFile(path.join(photosDir, name))));
      const shas = images.map((bytes) => sha256Hex(bytes));
      await Promise.all(images.map((bytes, i) => store.put(blobKey(shas[i]), bytes)));
      // Only the first has a prepared input (the second was ingested before the ingest made them).
      await store.put(modelInputKey(shas[0], encoder.input), (await analyzeImage(images[0], encoder.input)).modelInput!);
      const encoded = await encodeImageBlobs(store, encoder, shas);
      const reference = await encoder.encodeAndClassify(images);
      encoded.forEach((result, i) => {
        expect(cosine(result.vector, reference[i].vector)).toBeGreaterThan(0.999);
        expect(result.classes.map((c) => c.index)).toEqual(reference[i].classes.map((c) => c.index));
      });
      // A prepared input of the wrong size (another spec written under this key by mistake) is not trusted.
      await store.put(modelInputKey(shas[1], encoder.input), Buffer.alloc(10));
      expect(await encodeImageBlobs(store, encoder, [shas[1]])).toHaveLength(1);
      await expect(encoder.encodePixels([Buffer.alloc(10)])).rejects.toThrow(/model input of 10 bytes/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
