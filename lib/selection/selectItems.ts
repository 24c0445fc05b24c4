import { exactSearch, MetricKind, type BatchMatches } from 'usearch';
import { seededRandom } from '../map/seededRandom';
import { vectorMatrix } from '../vectors/vectorMatrix';

/**
 * Choosing what to label (issue 52): strategies that pick `count` items of a pool from their embeddings (unit
 * vectors), deterministic for a seed. Pure but for usearch's exact search. See docs/decisions.md.
 */

export type SelectionStrategy = 'diversity' | 'typicality' | 'representative' | 'uniqueness' | 'coverage';

export interface SelectionPool {
  vectors: readonly Float32Array[];
  dim: number;
  /** Each item's uniqueness (the analysis's score: higher is further from its nearest neighbour). */
  uniqueness?: ArrayLike<number>;
  /** Items already labelled: `coverage` picks what they leave furthest away. */
  labelled?: readonly number[];
}

export interface Chosen {
  index: number;
  /** The strategy's own score of the item when it was chosen (higher first). */
  score: number;
  reason: string;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** Below this many vector pairs a search runs on one thread: starting usearch's threads costs more than they save. */
const ONE_THREAD_PAIRS = 1_000_000;

/**
 * Each query's `k` nearest rows of `matrix` (cosine), as row indices and similarities; `queries` a matrix like it. Both
 * their own arrays: usearch reads a typed array from its buffer's start.
 */
function nearestRows(matrix: Float32Array, queries: Float32Array, dim: number, k: number): { index: Int32Array; similarity: Float32Array } {
  const [rows, count] = [matrix.length / dim, queries.length / dim];
  const limit = Math.min(k, rows);
  const index = new Int32Array(count * limit);
  const similarity = new Float32Array(count * limit);
  const batch = exactSearch(matrix, queries, dim, limit, MetricKind.Cos, rows * count <= ONE_THREAD_PAIRS ? 1 : 0) as BatchMatches;
  // Row numbers fit in the keys' low halves (little-endian): read as numbers, without a BigInt each.
  const keys = new Uint32Array(batch.keys.buffer, batch.keys.byteOffset, batch.keys.length * 2);
  for (let q = 0; q < count; q++) {
    for (let j = 0; j < limit; j++) {
      index[q * limit + j] = keys[2 * (q * batch.k + j)];
      similarity[q * limit + j] = 1 - batch.distances[q * batch.k + j];
    }
  }
  return { index, similarity };
}

/** How typical each item is: its mean similarity to its `k` nearest others (a density). */
export function typicalityOf(pool: SelectionPool, k = 20): Float64Array {
  const matrix = vectorMatrix(pool.vectors, pool.dim);
  const { index, similarity } = nearestRows(matrix, matrix, pool.dim, k + 1);
  const width = Math.min(k + 1, pool.vectors.length);
  return Float64Array.from(pool.vectors, (_, i) => {
    let sum = 0;
    let count = 0;
    for (let j = 0; j < width; j++) {
      if (index[i * width + j] === i) continue;
      sum += similarity[i * width + j];
      count++;
    }
    return count === 0 ? 0 : sum / count;
  });
}

/** k-means (k-means++ seeding, `rounds` Lloyd rounds) on unit vectors: the `k` centres (fewer when the pool is smaller). */
export function kMeansCentres(pool: SelectionPool, k: number, seed: number, rounds = 8): Float32Array[] {
  const random = seededRandom(seed);
  const { vectors, dim } = pool;
  const n = vectors.length;
  const centres: Float32Array[] = [Float32Array.from(vectors[Math.floor(random() * n)])];
  const nearest = new Float64Array(n).fill(Infinity);
  for (let centre = centres[0]; ; ) {
    for (let i = 0; i < n; i++) nearest[i] = Math.min(nearest[i], Math.max(0, 1 - dot(vectors[i], centre)));
    if (centres.length >= Math.min(k, n)) break;
    let total = 0;
    for (let i = 0; i < n; i++) total += nearest[i] * nearest[i];
    let target = random() * total;
    let pick = n - 1;
    for (let i = 0; i < n; i++) {
      target -= nearest[i] * nearest[i];
      if (target <= 0) {
        pick = i;
        break;
      }
    }
    centre = Float32Array.from(vectors[pick]);
    centres.push(centre);
  }
  let previous: Int32Array | undefined;
  for (let round = 0; round < rounds; round++) {
    const assignment = nearestCentres(centres, vectors, dim);
    // The same cells give the same centres: every later round would too.
    if (previous?.every((cell, i) => cell === assignment[i])) break;
    previous = assignment;
    const sums = centres.map(() => new Float64Array(dim));
    for (let i = 0; i < n; i++) {
      const sum = sums[assignment[i]];
      const vector = vectors[i];
      for (let d = 0; d < dim; d++) sum[d] += vector[d];
    }
    sums.forEach((sum, c) => {
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += sum[d] * sum[d];
      norm = Math.sqrt(norm);
      if (norm > 0) centres[c] = Float32Array.from(sum, (value) => value / norm);
    });
  }
  return centres;
}

/** Rows of queries searched at once: usearch copies each batch into one matrix. */
const QUERY_BATCH = 20_000;

/** Each vector's nearest centre (cosine, on unit vectors), searched in batches. */
export function nearestCentres(centres: readonly Float32Array[], vectors: readonly Float32Array[], dim: number): Int32Array {
  const assignment = new Int32Array(vectors.length);
  const matrix = vectorMatrix(centres, dim);
  for (let start = 0; start < vectors.length; start += QUERY_BATCH) {
    assignment.set(nearestRows(matrix, vectorMatrix(vectors.slice(start, start + QUERY_BATCH), dim), dim, 1).index, start);
  }
  return assignment;
}

/** k-means on unit vectors (kMeansCentres): each item's cluster. */
export function kMeans(pool: SelectionPool, k: number, seed: number, rounds = 8): Int32Array {
  return nearestCentres(kMeansCentres(pool, k, seed, rounds), pool.vectors, pool.dim);
}

/**
 * Diversity: farthest-point (k-center greedy) selection. The first pick is the item nearest the pool's mean;
 * each next one is the item furthest from everything chosen (and from the labelled items, when given).
 */
function diverse(pool: SelectionPool, count: number): Chosen[] {
  const n = pool.vectors.length;
  const distance = new Float64Array(n).fill(Infinity);
  const chosen: Chosen[] = [];
  const moveAwayFrom = (index: number) => {
    const centre = pool.vectors[index];
    for (let i = 0; i < n; i++) distance[i] = Math.min(distance[i], 1 - dot(pool.vectors[i], centre));
  };
  const take = (index: number, score: number, reason: string) => {
    chosen.push({ index, score, reason });
    moveAwayFrom(index);
  };
  for (const index of pool.labelled ?? []) moveAwayFrom(index);
  if ((pool.labelled ?? []).length === 0) {
    const sum = new Float64Array(pool.dim);
    for (const vector of pool.vectors) for (let d = 0; d < pool.dim; d++) sum[d] += vector[d];
    const mean = Float32Array.from(sum);
    let first = 0;
    for (let i = 1; i < n; i++) if (dot(pool.vectors[i], mean) > dot(pool.vectors[first], mean)) first = i;
    take(first, 1, 'nearest the centre of the pool');
  }
  while (chosen.length < Math.min(count, n)) {
    let far = 0;
    for (let i = 1; i < n; i++) if (distance[i] > distance[far]) far = i;
    take(far, distance[far], `furthest from everything chosen so far (distance ${distance[far].toFixed(3)})`);
  }
  return chosen;
}

/**
 * Typicality (TypiClust): the pool in `count` clusters, and from each the item in the densest neighbourhood, the
 * largest clusters first: typical examples of every mode of the data, which a small budget learns most from.
 */
function typical(pool: SelectionPool, count: number, seed: number): Chosen[] {
  const clusters = kMeans(pool, count, seed);
  const typicality = typicalityOf(pool);
  const best = new Map<number, number>();
  const size = new Map<number, number>();
  clusters.forEach((cluster, i) => {
    size.set(cluster, (size.get(cluster) ?? 0) + 1);
    const current = best.get(cluster);
    if (current === undefined || typicality[i] > typicality[current]) best.set(cluster, i);
  });
  return [...best.entries()]
    .sort((a, b) => size.get(b[0])! - size.get(a[0])! || a[1] - b[1])
    .slice(0, count)
    .map(([cluster, index]) => ({ index, score: typicality[index], reason: `most typical of a group of ${size.get(cluster)} alike items` }));
}

/** How many nearest neighbours a pick of `representative` can stand for. */
const REPRESENTED = 50;

/**
 * Representativeness (greedy facility location on the kNN lists): each pick raises how well every item is
 * represented (its similarity to the nearest pick) the most, counting only items above a floor: the median
 * similarity of an item to its (pool / count)-th nearest, so a pick stands for about its share of the pool.
 * Where typicality spends a small budget on the centre of each mode, this keeps covering the modes' spread.
 */
function representative(pool: SelectionPool, count: number): Chosen[] {
  const n = pool.vectors.length;
  const width = Math.min(REPRESENTED + 1, n);
  const matrix = vectorMatrix(pool.vectors, pool.dim);
  const { index, similarity } = nearestRows(matrix, matrix, pool.dim, width);
  const share = Math.min(width - 1, Math.max(1, Math.round(n / Math.max(1, count))));
  const floor = Float64Array.from({ length: n }, (_, i) => similarity[i * width + share]).sort()[Math.floor(n / 2)];
  const represented = new Float64Array(n).fill(floor);
  const gainOf = (c: number) => {
    let gain = 0;
    for (let slot = c * width; slot < (c + 1) * width; slot++) gain += Math.max(0, similarity[slot] - represented[index[slot]]);
    return gain;
  };
  const taken = new Uint8Array(n);
  const chosen: Chosen[] = [];
  while (chosen.length < Math.min(count, n)) {
    let best = -1;
    let gain = -1;
    for (let c = 0; c < n; c++) {
      if (taken[c]) continue;
      const candidate = gainOf(c);
      if (candidate > gain) [best, gain] = [c, candidate];
    }
    taken[best] = 1;
    for (let slot = best * width; slot < (best + 1) * width; slot++) represented[index[slot]] = Math.max(represented[index[slot]], similarity[slot]);
    chosen.push({ index: best, score: gain, reason: gain > 0 ? `represents its neighbours better than any earlier pick (gain ${gain.toFixed(2)})` : 'the pool is represented: next in order' });
  }
  return chosen;
}

/** Uniqueness: the items furthest from their nearest neighbour (the analysis's score). */
function unique(pool: SelectionPool, count: number): Chosen[] {
  const scores = pool.uniqueness ?? Float64Array.from(typicalityOf(pool, 1), (similarity) => 1 - similarity);
  return Array.from({ length: scores.length }, (_, index) => index)
    .sort((a, b) => scores[b] - scores[a] || a - b)
    .slice(0, count)
    .map((index) => ({ index, score: scores[index], reason: `uniqueness ${Number(scores[index]).toFixed(3)}` }));
}

/** Chooses `count` items of the pool by `strategy`; the same pool, count and seed give the same items. */
export function selectItems(pool: SelectionPool, strategy: SelectionStrategy, count: number, seed = 1): Chosen[] {
  if (strategy === 'diversity') return diverse({ ...pool, labelled: [] }, count);
  if (strategy === 'coverage') return diverse(pool, count);
  if (strategy === 'typicality') return typical(pool, count, seed);
  if (strategy === 'representative') return representative(pool, count);
  return unique(pool, count);
}
