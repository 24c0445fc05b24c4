import { GRAPH_K } from '../lib/clustering/knnGraph';
import { frameSearchDepth, frameVideosFrom, hitsPastOwnVideo, type FrameVideos } from '../lib/clustering/ownVideoHits';
import { imageCollection, type VectorHit, type VectorStore } from '../lib/vectors/vectorStore';
import { heartbeatOrStop, type Liveness } from './taskLiveness';

const QUERY_BATCH = 256;

/**
 * Searches the `k` nearest neighbours (self included) of stored items batch by batch, handing each
 * batch's hits to `onBatch` (hits[i] for ids[start + i]), heartbeating and honouring cancellation.
 * With `videos`, a frame's `k` reach past its own video's frames (lib/clustering/ownVideoHits.ts).
 */
export async function forEachNeighbourBatch(
  live: Liveness,
  vectors: VectorStore,
  collection: string,
  ids: string[],
  k: number,
  onBatch: (start: number, hits: VectorHit[][]) => Promise<void>,
  videos?: FrameVideos,
): Promise<void> {
  for (let start = 0; start < ids.length; start += QUERY_BATCH) {
    heartbeatOrStop(live, { start });
    const batch = ids.slice(start, start + QUERY_BATCH);
    const queries = await storedVectors(vectors, collection, batch);
    await onBatch(start, videos ? await searchPastOwnVideos(vectors, collection, batch, queries, k, videos) : await vectors.searchMany(collection, queries, k));
  }
}

/** searchMany, the frames among `ids` searched deeper and kept to `k` hits past their own video's frames. */
async function searchPastOwnVideos(vectors: VectorStore, collection: string, ids: string[], queries: Float32Array[], k: number, videos: FrameVideos): Promise<VectorHit[][]> {
  const frames: number[] = [];
  const others: number[] = [];
  let depth = k;
  ids.forEach((id, i) => {
    const video = videos.videoOf(id);
    if (video === undefined) return others.push(i);
    frames.push(i);
    depth = Math.max(depth, frameSearchDepth(k, videos.framesOf(video)));
  });
  const hits: VectorHit[][] = new Array(ids.length);
  const [otherHits, frameHits] = await Promise.all([
    others.length > 0 ? vectors.searchMany(collection, others.map((i) => queries[i]), k) : [],
    frames.length > 0 ? vectors.searchMany(collection, frames.map((i) => queries[i]), depth) : [],
  ]);
  others.forEach((i, b) => (hits[i] = otherHits[b]));
  frames.forEach((i, b) => (hits[i] = hitsPastOwnVideo(frameHits[b], ids[i], videos, k)));
  return hits;
}

/** The `k` nearest neighbours (self included) of stored items, all at once. */
export async function vectorNeighbours(
  live: Liveness,
  vectors: VectorStore,
  collection: string,
  ids: string[],
  k: number,
  onBatch: (done: number) => Promise<void> = async () => undefined,
  videos?: FrameVideos,
): Promise<VectorHit[][]> {
  const results: VectorHit[][] = [];
  await forEachNeighbourBatch(
    live,
    vectors,
    collection,
    ids,
    k,
    async (start, hits) => {
      results.push(...hits);
      await onBatch(start + hits.length);
    },
    videos,
  );
  return results;
}

/**
 * The graph's neighbours (GRAPH_K + 1, self included) of the embedded ones of `items`, in their order: each frame's
 * past its own video's other frames (lib/clustering/ownVideoHits.ts), whose frames must all be among `items`.
 */
export function graphNeighbours(
  live: Liveness,
  vectors: VectorStore,
  vectorSpaceId: string,
  items: ReadonlyArray<{ id: string; parent_id: string | null; embedded: boolean }>,
  report: (done: number, total: number) => Promise<void>,
): Promise<VectorHit[][]> {
  const ids = items.filter((item) => item.embedded).map((item) => item.id);
  const videos = frameVideosFrom(items.flatMap((item) => (item.parent_id ? [[item.id, item.parent_id] as [string, string]] : [])));
  return vectorNeighbours(live, vectors, imageCollection(vectorSpaceId), ids, GRAPH_K + 1, (done) => report(done, ids.length + 1), videos);
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
