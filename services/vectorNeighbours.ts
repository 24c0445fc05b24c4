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

/**
 * searchMany, the frames among `ids` searched deeper and kept to `k` hits past their own video's frames. Items of one
 * depth are searched together, so an item's hits do not depend on the batch it came in (an index's search width may
 * grow with the hits asked for).
 */
async function searchPastOwnVideos(vectors: VectorStore, collection: string, ids: string[], queries: Float32Array[], k: number, videos: FrameVideos): Promise<VectorHit[][]> {
  const byDepth = new Map<number, number[]>();
  const videoOf = ids.map((id) => videos.videoOf(id));
  videoOf.forEach((video, i) => {
    const depth = video === undefined ? k : frameSearchDepth(k, videos.framesOf(video));
    const group = byDepth.get(depth);
    if (group) group.push(i);
    else byDepth.set(depth, [i]);
  });
  const hits: VectorHit[][] = new Array(ids.length);
  for (const [depth, indexes] of byDepth) {
    const found = await vectors.searchMany(collection, indexes.map((i) => queries[i]), depth);
    indexes.forEach((i, b) => (hits[i] = videoOf[i] === undefined ? found[b] : hitsPastOwnVideo(found[b], ids[i], videos, k)));
  }
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

/** The videos of a version's items read as columns (db/repositories/media.ts indexItemColumns: each frame's video by its place). */
export function frameVideosOfColumns({ ids, parents }: { ids: readonly string[]; parents: ReadonlyMap<number, string> }): FrameVideos {
  return frameVideosFrom([...parents].map(([place, video]): [string, string] => [ids[place], video]));
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
