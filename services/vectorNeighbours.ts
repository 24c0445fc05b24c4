import type { VectorHit, VectorStore } from '../lib/vectors/vectorStore';
import { heartbeatOrStop, type Liveness } from './taskLiveness';

const QUERY_BATCH = 256;

/**
 * Searches the `k` nearest neighbours (self included) of stored items batch by batch, handing each
 * batch's hits to `onBatch` (hits[i] for ids[start + i]), heartbeating and honouring cancellation.
 */
export async function forEachNeighbourBatch(
  live: Liveness,
  vectors: VectorStore,
  collection: string,
  ids: string[],
  k: number,
  onBatch: (start: number, hits: VectorHit[][]) => Promise<void>,
): Promise<void> {
  for (let start = 0; start < ids.length; start += QUERY_BATCH) {
    heartbeatOrStop(live, { start });
    const queries = await storedVectors(vectors, collection, ids.slice(start, start + QUERY_BATCH));
    await onBatch(start, await vectors.searchMany(collection, queries, k));
  }
}

/** The `k` nearest neighbours (self included) of stored items, all at once. */
export async function vectorNeighbours(
  live: Liveness,
  vectors: VectorStore,
  collection: string,
  ids: string[],
  k: number,
  onBatch: (done: number) => Promise<void> = async () => undefined,
): Promise<VectorHit[][]> {
  const results: VectorHit[][] = [];
  await forEachNeighbourBatch(live, vectors, collection, ids, k, async (start, hits) => {
    results.push(...hits);
    await onBatch(start + hits.length);
  });
  return results;
}

/** The stored vectors of `ids`, in their order; every one must exist. */
export async function storedVectors(vectors: VectorStore, collection: string, ids: readonly string[]): Promise<Float32Array[]> {
  const stored = await vectors.get(collection, [...ids]);
  return ids.map((id) => {
    const vector = stored.get(id);
    if (!vector) throw new Error(`an item has no vector in ${collection}`);
    return vector;
  });
}
