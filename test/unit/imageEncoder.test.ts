import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../lib/config';
import { loadImageEncoderInThread } from '../../lib/ml/encoderThread';
import { imageTensor, loadImageEncoder, type ImageEncoder } from '../../lib/ml/imageEncoder';
import { NEIGHBOUR_SCORING } from '../../lib/quality/neighbourScores';

const photo = (name: string) => path.join(__dirname, '..', 'fixtures', 'photos', `${name}.jpg`);
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);

describe('the real image encoder (EfficientNet-Lite0, installed by npm install)', () => {
  let encoder: ImageEncoder;

  beforeAll(async () => {
    const config = loadConfig({});
    encoder = await loadImageEncoder(config.models.dir, config.models.imageModel, 2);
  });
  afterAll(() => encoder.close());

  it('returns one unit vector of the model dimension per image', async () => {
    const [a, b] = await encoder.encode([photo('chelsea'), photo('coffee')]);
    expect(encoder.dim).toBe(1280);
    expect(a).toHaveLength(1280);
    expect(cosine(a, a)).toBeCloseTo(1, 4);
    expect(cosine(b, b)).toBeCloseTo(1, 4);
  });

  it('places a resized, re-encoded copy next to its original and unrelated photos far apart', async () => {
    const copy = await sharp(photo('chelsea')).resize(300).jpeg({ quality: 50 }).toBuffer();
    const names = ['chelsea', 'coffee', 'astronaut', 'rocket', 'motorcycle_left', 'grace_hopper'];
    const [original, ...others] = await encoder.encode([photo('chelsea'), copy, ...names.slice(1).map(photo)]);
    const [copyVector, ...unrelated] = others;
    const copySimilarity = cosine(original, copyVector);
    expect(copySimilarity).toBeGreaterThan(NEIGHBOUR_SCORING.duplicateSimilarity);
    for (const vector of unrelated) expect(cosine(original, vector)).toBeLessThan(0.6);
  });
});

describe('the image encoder in worker threads (two, one intra-op thread each)', () => {
  let inThread: ImageEncoder;
  let onLoop: ImageEncoder;

  beforeAll(async () => {
    const config = loadConfig({});
    [inThread, onLoop] = await Promise.all([
      loadImageEncoderInThread(config.models.dir, config.models.imageModel, 2),
      loadImageEncoder(config.models.dir, config.models.imageModel, 1),
    ]);
  });
  afterAll(() => Promise.all([inThread.close(), onLoop.close()]));

  it('gives the same vectors and classes as the encoder on the calling thread, from each of its threads, and describes the same model', async () => {
    const images = [photo('chelsea'), photo('coffee'), photo('rocket')];
    // Two batches at once, each split into runs over the threads: the answers come back in the images' order.
    const [threaded, again, direct] = await Promise.all([inThread.encodeAndClassify(images), inThread.encodeAndClassify(images), onLoop.encodeAndClassify(images)]);
    expect(again).toEqual(threaded);
    const model = (encoder: ImageEncoder) => ({ id: encoder.modelId, dim: encoder.dim, classifier: encoder.hasClassifier, input: encoder.input });
    expect(model(inThread)).toEqual(model(onLoop));
    threaded.forEach((encoded, i) => {
      expect(cosine(encoded.vector, direct[i].vector)).toBeCloseTo(1, 5);
      expect(encoded.classes).toEqual(direct[i].classes);
    });
  });

  it('leaves the event loop free while a batch runs, where the encoder on the calling thread blocks it', async () => {
    const pixels = Array.from({ length: 64 }, (_, i) => Buffer.alloc(inThread.input.size * inThread.input.size * 3, i * 4));
    const timerTicksDuring = async (encode: () => Promise<unknown>) => {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      await encode();
      clearInterval(timer);
      return ticks;
    };
    // Compared with the same batch on the calling thread, not with the clock: a loaded machine slows both.
    const blocked = await timerTicksDuring(() => onLoop.encodePixels(pixels));
    const free = await timerTicksDuring(() => inThread.encodePixels(pixels));
    expect(blocked).toBeLessThanOrEqual(1);
    expect(free).toBeGreaterThan(blocked + 3);
  });

  it('fails to load with the model’s message when the model is not installed', async () => {
    await expect(loadImageEncoderInThread('/nonexistent-models', 'efficientnet-lite0', 2)).rejects.toThrow(/not installed/);
  });

  it('rejects input of the wrong size with the model’s message, and keeps serving', async () => {
    await expect(inThread.encodePixels([Buffer.alloc(10)])).rejects.toThrow(/model input of 10 bytes/);
    expect(await inThread.encode([photo('chelsea')])).toHaveLength(1);
  });
});

describe('imageTensor', () => {
  it('normalises every pixel of every image into planar float32 (channel by channel), as (value − mean) / std', () => {
    const spec = { inputFormat: 'float32-nchw' as const, size: 3, mean: [127, 100, 50] as [number, number, number], std: [128, 64, 32] as [number, number, number] };
    const images = [Buffer.from(Array.from({ length: 27 }, (_, i) => (i * 37) % 256)), Buffer.from(Array.from({ length: 27 }, (_, i) => 255 - i * 9))];
    const tensor = imageTensor(images, spec);
    expect(tensor.dims).toEqual([2, 3, 3, 3]);
    const data = tensor.data as Float32Array;
    images.forEach((rgb, b) => {
      for (let p = 0; p < 9; p++) {
        for (let c = 0; c < 3; c++) expect(data[b * 27 + c * 9 + p]).toBe(Math.fround((rgb[p * 3 + c] - spec.mean[c]) / spec.std[c]));
      }
    });
  });
});
