import type { TextEncoder } from './textEncoder';

/**
 * The text encoder, remembering the embeddings of its last `size` texts: paging through a search, or
 * many users asking the same, encodes the text once (inference runs on the caller's thread).
 * Callers must not change the vectors they get.
 */
export function rememberQueryEmbeddings(load: () => Promise<TextEncoder>, size: number): () => Promise<TextEncoder> {
  const remembered = new Map<string, Float32Array>();
  const remember = (text: string, vector: Float32Array) => {
    remembered.delete(text);
    remembered.set(text, vector);
    // A Map iterates in insertion order: the first key is the least recently used.
    if (remembered.size > size) remembered.delete(remembered.keys().next().value!);
  };
  let wrapped: { encoder: TextEncoder; remembering: TextEncoder } | undefined;
  return async () => {
    const encoder = await load();
    if (wrapped?.encoder !== encoder) {
      const remembering: TextEncoder = {
        ...encoder,
        async encode(texts) {
          const vectors = new Map<string, Float32Array>();
          for (const text of texts) {
            const known = remembered.get(text);
            if (known) vectors.set(text, known);
          }
          const missing = [...new Set(texts.filter((text) => !vectors.has(text)))];
          (await encoder.encode(missing)).forEach((vector, i) => vectors.set(missing[i], vector));
          for (const [text, vector] of vectors) remember(text, vector);
          return texts.map((text) => vectors.get(text)!);
        },
      };
      wrapped = { encoder, remembering };
    }
    return wrapped.remembering;
  };
}
