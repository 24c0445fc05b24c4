import { NEIGHBOUR_SCORING } from '../quality/neighbourScores';
import { componentLabels, UnionFind } from './unionFind';

/** Neighbours per item in the kNN graph. */
export const GRAPH_K = 10;

/** One neighbour of an item: its index and their cosine similarity. */
export interface GraphNeighbour {
  index: number;
  similarity: number;
}

/**
 * Every item's kNN neighbours in flat typed arrays, nearest first: slot s of item i is at i * width + s.
 * No object per item or per edge, so a million items with 11 slots take ~130 MB.
 */
export interface KnnGraph {
  count: number;
  width: number;
  degree: Uint8Array;
  neighbour: Int32Array;
  similarity: Float64Array;
  /** The stored chunk each item's list came from: a later chunk's list of an item replaces the earlier one. */
  listChunk: Int32Array;
}

/** Bytes per stored hit: searching item (int32), neighbour (int32), similarity (float64), little-endian. */
export const KNN_HIT_BYTES = 16;

export function emptyKnnGraph(count: number, width: number): KnnGraph {
  return {
    count,
    width,
    degree: new Uint8Array(count),
    neighbour: new Int32Array(count * width),
    similarity: new Float64Array(count * width),
    listChunk: new Int32Array(count).fill(-1),
  };
}

/** The hits of one searched chunk (parallel arrays, each item's hits nearest first) as one blob. */
export function encodeKnnHits(sources: readonly number[], targets: readonly number[], similarities: readonly number[]): Buffer {
  const blob = Buffer.alloc(sources.length * KNN_HIT_BYTES);
  for (let h = 0; h < sources.length; h++) {
    blob.writeInt32LE(sources[h], h * KNN_HIT_BYTES);
    blob.writeInt32LE(targets[h], h * KNN_HIT_BYTES + 4);
    blob.writeDoubleLE(similarities[h], h * KNN_HIT_BYTES + 8);
  }
  return blob;
}

/**
 * Adds stored chunk `chunk`'s blob of hits (encodeKnnHits) to the graph: an item's hits go after its hits from the
 * same chunk and replace its list from an earlier chunk (an incremental reindex stores changed lists in new chunks).
 * `placeOf` maps stored ordinals to the graph's (identity without it).
 */
export function addKnnHits(graph: KnnGraph, blob: Buffer, chunk = 0, placeOf?: Int32Array): void {
  const place = (ordinal: number) => (placeOf ? placeOf[ordinal] : ordinal);
  for (let offset = 0; offset < blob.length; offset += KNN_HIT_BYTES) {
    const source = place(blob.readInt32LE(offset));
    if (graph.listChunk[source] !== chunk) {
      graph.listChunk[source] = chunk;
      graph.degree[source] = 0;
    }
    const slot = source * graph.width + graph.degree[source];
    if (graph.degree[source] >= graph.width) throw new Error(`item ${source} has more than ${graph.width} stored neighbours`);
    graph.neighbour[slot] = place(blob.readInt32LE(offset + 4));
    graph.similarity[slot] = blob.readDoubleLE(offset + 8);
    graph.degree[source]++;
  }
}

/** Item i's neighbours, nearest first (a new array each call: callers hold few at a time). */
export function neighboursIn(graph: KnnGraph, i: number): GraphNeighbour[] {
  const neighbours: GraphNeighbour[] = [];
  for (let slot = i * graph.width; slot < i * graph.width + graph.degree[i]; slot++) {
    neighbours.push({ index: graph.neighbour[slot], similarity: graph.similarity[slot] });
  }
  return neighbours;
}

/** meanTopK (lib/quality/neighbourScores) of item i's list, read in place: no objects made for it. */
export function meanTopKIn(graph: KnnGraph, i: number): number {
  const top = Math.min(graph.degree[i], NEIGHBOUR_SCORING.outlierNeighbours);
  let sum = 0;
  for (let slot = i * graph.width; slot < i * graph.width + top; slot++) sum += graph.similarity[slot];
  return top === 0 ? 0 : sum / top;
}

/**
 * Puts `neighbour` into item i's list (nearest first) if the list has fewer than `capacity` neighbours or `neighbour`
 * is nearer than its last, which then drops out. Whether the list changed.
 */
export function enterNeighbour(graph: KnnGraph, i: number, neighbour: number, similarity: number, capacity: number): boolean {
  const first = i * graph.width;
  let degree = graph.degree[i];
  if (hasNeighbour(graph, i, neighbour)) return false;
  if (degree >= capacity) {
    if (similarity <= graph.similarity[first + degree - 1]) return false;
    degree--;
  }
  let slot = first + degree;
  for (; slot > first && graph.similarity[slot - 1] < similarity; slot--) {
    graph.neighbour[slot] = graph.neighbour[slot - 1];
    graph.similarity[slot] = graph.similarity[slot - 1];
  }
  graph.neighbour[slot] = neighbour;
  graph.similarity[slot] = similarity;
  graph.degree[i] = degree + 1;
  return true;
}

/** The lists of `items` as one blob (encodeKnnHits). */
export function encodeLists(graph: KnnGraph, items: readonly number[]): Buffer {
  const sources: number[] = [];
  const targets: number[] = [];
  const similarities: number[] = [];
  for (const i of items) {
    for (const neighbour of neighboursIn(graph, i)) {
      sources.push(i);
      targets.push(neighbour.index);
      similarities.push(neighbour.similarity);
    }
  }
  return encodeKnnHits(sources, targets, similarities);
}

function hasNeighbour(graph: KnnGraph, i: number, j: number): boolean {
  for (let slot = i * graph.width; slot < i * graph.width + graph.degree[i]; slot++) if (graph.neighbour[slot] === j) return true;
  return false;
}

/**
 * Which slots are edges of the undirected graph: a pair that are each other's neighbours counts once, with the
 * similarity the smaller item found (as analyzeDataset builds it: the two searches may differ in the last bits).
 */
export function edgeSlots(graph: KnnGraph): Uint8Array {
  const edges = new Uint8Array(graph.count * graph.width);
  for (let a = 0; a < graph.count; a++) {
    for (let slot = a * graph.width; slot < a * graph.width + graph.degree[a]; slot++) {
      const b = graph.neighbour[slot];
      if (b > a || !hasNeighbour(graph, b, a)) edges[slot] = 1;
    }
  }
  return edges;
}

export function undirectedEdgeCount(graph: KnnGraph): number {
  return edgeSlots(graph).reduce((sum, edge) => sum + edge, 0);
}

/**
 * clusterByThresholds over the graph's edges (edgeSlots), without listing them as objects: connected components do
 * not depend on the order edges join in, so each level unions every edge at or above its cut-off (cut-offs
 * descend, so each level extends the previous one's unions). Labels are each component's smallest member index.
 */
export function clusterKnnGraph(graph: KnnGraph, cutoffs: readonly number[]): Int32Array[] {
  return Array.from(knnGraphLevels(graph, cutoffs));
}

/** clusterKnnGraph a level at a time (at 1,000,000 items a level takes seconds: the caller may let other work run between). */
export function* knnGraphLevels(graph: KnnGraph, cutoffs: readonly number[]): Generator<Int32Array> {
  const edges = edgeSlots(graph);
  const sets = new UnionFind(graph.count);
  for (const cutoff of cutoffs) {
    for (let a = 0; a < graph.count; a++) {
      for (let slot = a * graph.width; slot < a * graph.width + graph.degree[a]; slot++) {
        if (edges[slot] === 1 && graph.similarity[slot] >= cutoff) sets.union(a, graph.neighbour[slot]);
      }
    }
    yield componentLabels(sets, graph.count);
  }
}
