import { rememberQueryEmbeddings } from '../../lib/ml/rememberedQueries';
import type { TextEncoder } from '../../lib/ml/textEncoder';

function countingEncoder() {
  const encoded: string[] = [];
  const encoder: TextEncoder = {
    modelId: 'test',
    dim: 1,
    async encode(texts) {
      encoded.push(...texts);
      return texts.map((text) => Float32Array.of(text.length));
    },
    async close() {},
  };
  return { encoder, encoded };
}

describe('rememberQueryEmbeddings', () => {
  it('encodes a text once while it is among the last `size` texts, and answers in the order asked', async () => {
    const { encoder, encoded } = countingEncoder();
    const load = rememberQueryEmbeddings(async () => encoder, 2);
    const remembering = await load();
    expect((await remembering.encode(['a', 'bb', 'a'])).map((v) => v[0])).toEqual([1, 2, 1]);
    expect((await (await load()).encode(['bb'])).map((v) => v[0])).toEqual([2]);
    expect(encoded).toEqual(['a', 'bb']);

    await remembering.encode(['ccc']); // 'a' is now the least recently used and goes
    await remembering.encode(['a', 'bb']);
    expect(encoded).toEqual(['a', 'bb', 'ccc', 'a']);
  });

  it('leaves loading to the loader it wraps, failures included', async () => {
    let attempts = 0;
    const load = rememberQueryEmbeddings(async () => {
      attempts++;
      throw new Error('not installed');
    }, 10);
    await expect(load()).rejects.toThrow('not installed');
    await expect(load()).rejects.toThrow('not installed');
    expect(attempts).toBe(2);
  });
});
