import { setImmediate as nextTurn } from 'node:timers/promises';
import { exactSearch, MetricKind, type BatchMatches } from 'usearch';
import { layoutBounds } from './layoutBounds';
import { seededRandom } from './seededRandom';
import { vectorMatrix } from '../vectors/vectorMatrix';
import { umapLayout, type NearestRows } from './umap';

/** Below this many vectors UMAP's neighbourhoods span most of the data and scatter near-copies; the two principal components keep them together. */
export const LEAST_FOR_UMAP = 64;
/** Neighbours per point UMAP keeps together: as many as the analysis's kNN graph holds, so a map of every item can take its lists. */
export const UMAP_NEIGHBOURS = 10;
/**
 * umap-learn's default for large data; on Fashion-MNIST its default of 500 for small data kept as many of each point's
 * ten nearest (0.72 of the same class) at 2.5 times the time (docs/decisions.md "Map layout: a typed UMAP").
 */
const UMAP_EPOCHS = 200;

/** `vector` scaled to length 1 (a zero vector stays zero), so Euclidean nearness is cosine nearness. */
export function unitVector(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  return vector.map((value) => value / norm);
}

/**
 * 2D positions (x0, y0, x1, y1, …) of `vectors` (by cosine), scaled into [-1, 1] with their aspect
 * kept: UMAP over each vector's exact nearest, seeded so the same vectors give the same layout, or PCA for a handful of vectors.
 */
export async function embedSample(vectors: readonly Float32Array[], seed = 42): Promise<Float32Array> {
  const units = vectors.map(unitVector);
  if (units.length < LEAST_FOR_UMAP) return fitToUnitSquare(principalPlane(units.map((vector) => Array.from(vector))));
  return embedNearest(await exactNeighbours(units, UMAP_NEIGHBOURS), seed);
}

/** Like embedSample, from each point's nearest already known (the analysis's kNN graph): no vector is read or compared. */
export async function embedNearest(nearest: NearestRows, seed = 42): Promise<Float32Array> {
  const random = seededRandom(seed);
  const initial = Float32Array.from({ length: nearest.count * 2 }, () => random() * 20 - 10);
  return fitToUnitSquare(await umapLayout(nearest, initial, { epochs: UMAP_EPOCHS, seed }));
}

/** Euclidean distance between unit vectors of cosine similarity `similarity`. */
export const unitDistance = (similarity: number) => Math.sqrt(Math.max(0, 2 * (1 - similarity)));

/** Queries an exact neighbour search answers in one synchronous call (about half a second for 5,000 vectors of 1280). */
const NEIGHBOUR_QUERY_BATCH = 256;

/** Each unit vector's `k` nearest others by Euclidean distance; a batch of queries an event-loop turn. */
async function exactNeighbours(data: readonly Float32Array[], k: number): Promise<NearestRows> {
  const dim = data[0].length;
  const count = data.length;
  const matrix = vectorMatrix(data, dim);
  const indices = new Int32Array(count * k).fill(-1);
  const distances = new Float32Array(count * k);
  for (let start = 0; start < count; start += NEIGHBOUR_QUERY_BATCH) {
    // A copy: usearch's exactSearch reads a typed array from the start of its buffer, ignoring a view's offset.
    const queries = matrix.slice(start * dim, Math.min(count, start + NEIGHBOUR_QUERY_BATCH) * dim);
    const found = exactSearch(matrix, queries, dim, Math.min(count, k + 1), MetricKind.L2sq) as BatchMatches;
    for (let q = 0; q < queries.length / dim; q++) {
      const row = (start + q) * k;
      let kept = 0;
      for (let h = 0; h < Number(found.counts[q]) && kept < k; h++) {
        const index = Number(found.keys[q * found.k + h]);
        if (index === start + q) continue;
        indices[row + kept] = index;
        distances[row + kept++] = Math.sqrt(Math.max(0, found.distances[q * found.k + h]));
      }
    }
    await nextTurn();
  }
  return { count, k, indices, distances };
}

/** The projection onto the first two principal components (power iteration on the centred data). */
function principalPlane(data: number[][]): Float32Array {
  const positions = new Float32Array(data.length * 2);
  if (data.length === 0) return positions;
  const dim = data[0].length;
  const mean = new Array<number>(dim).fill(0);
  for (const row of data) row.forEach((value, d) => (mean[d] += value / data.length));
  const centred = data.map((row) => row.map((value, d) => value - mean[d]));
  const random = seededRandom(7);
  const components: number[][] = [];
  for (let c = 0; c < 2; c++) {
    let axis = Array.from({ length: dim }, () => random() - 0.5);
    for (let iteration = 0; iteration < 50; iteration++) {
      const next = new Array<number>(dim).fill(0);
      for (const row of centred) {
        const along = row.reduce((sum, value, d) => sum + value * axis[d], 0);
        row.forEach((value, d) => (next[d] += along * value));
      }
      for (const previous of components) {
        const overlap = next.reduce((sum, value, d) => sum + value * previous[d], 0);
        previous.forEach((value, d) => (next[d] -= overlap * value));
      }
      const norm = Math.hypot(...next);
      if (norm === 0) break;
      axis = next.map((value) => value / norm);
    }
    components.push(axis);
  }
  centred.forEach((row, i) => {
    for (let c = 0; c < 2; c++) positions[i * 2 + c] = row.reduce((sum, value, d) => sum + value * components[c][d], 0);
  });
  return positions;
}

/** Centres the points and scales them so the wider side spans [-1, 1]. */
export function fitToUnitSquare(positions: Float32Array): Float32Array {
  const n = positions.length / 2;
  if (n === 0) return positions;
  const { minX, maxX, minY, maxY } = layoutBounds(positions);
  const half = Math.max(maxX - minX, maxY - minY) / 2 || 1;
  const [cx, cy] = [(minX + maxX) / 2, (minY + maxY) / 2];
  for (let i = 0; i < n; i++) {
    positions[i * 2] = (positions[i * 2] - cx) / half;
    positions[i * 2 + 1] = (positions[i * 2 + 1] - cy) / half;
  }
  return positions;
}
