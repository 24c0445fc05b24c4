import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../lib/config';
import { loadImageEncoder, type ImageEncoder } from '../../lib/ml/imageEncoder';
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
