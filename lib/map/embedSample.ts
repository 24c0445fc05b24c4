import { UMAP } from 'umap-js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { exactSearch, MetricKind, type BatchMatches } from 'usearch';
import { seededRandom } from './seededRandom';
import { vectorMatrix } from '../vectors/vectorMatrix';

/** Below this many vectors UMAP's neighbourhoods span most of the data and scatter near-copies; the two principal components keep them together. */
const LEAST_FOR_UMAP = 64;
const UMAP_NEIGHBOURS = 15;

/** `vector` scaled to length 1 (a zero vector stays zero), so Euclidean nearness is cosine nearness. */
export function unitVector(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  return vector.map((value) => value / norm);
}

/**
 * 2D positions (x0, y0, x1, y1, …) of `vectors` (by cosine), scaled into [-1, 1] with their aspect
 * kept: UMAP, seeded so the same vectors give the same layout, or PCA for a handful of vectors.
 */
export async function embedSample(vectors: readonly Float32Array[], seed = 42): Promise<Float32Array> {
  const units = vectors.map(unitVector);
  const positions = units.length >= LEAST_FOR_UMAP ? await umapOf(units, seed) : principalPlane(units.map((vector) => Array.from(vector)));
  return fitToUnitSquare(positions);
}

/**
 * UMAP's epochs run one event-loop turn each (a 5,000-vector sample takes a minute on a busy machine), so the worker's
 * heartbeats go on meanwhile. Its neighbours are given exactly (usearch, native): umap-js's own neighbour search runs in
 * one synchronous stretch that took minutes for 310 vectors on a busy machine, long enough for the analysis to miss
 * its heartbeats, be retried and run twice at once.
 */
async function umapOf(data: Float32Array[], seed: number): Promise<Float32Array> {
  const nNeighbors = Math.min(UMAP_NEIGHBOURS, data.length - 1);
  const umap = new UMAP({ nComponents: 2, nNeighbors, minDist: 0.1, random: seededRandom(seed) });
  const { indices, distances } = await exactNeighbours(data, nNeighbors);
  umap.setPrecomputedKNN(indices, distances);
  return Float32Array.from((await umap.fitAsync(data.map((vector) => Array.from(vector)))).flat());
}

/** Queries an exact neighbour search answers in one synchronous call (about half a second for 5,000 vectors of 1280). */
const NEIGHBOUR_QUERY_BATCH = 256;

/** Each unit vector's `k` nearest by Euclidean distance, itself first (as UMAP's own search finds them); a batch of queries an event-loop turn. */
async function exactNeighbours(data: readonly Float32Array[], k: number): Promise<{ indices: number[][]; distances: number[][] }> {
  const dim = data[0].length;
  const matrix = vectorMatrix(data, dim);
  const indices: number[][] = [];
  const distances: number[][] = [];
  for (let start = 0; start < data.length; start += NEIGHBOUR_QUERY_BATCH) {
    const queries = matrix.subarray(start * dim, Math.min(data.length, start + NEIGHBOUR_QUERY_BATCH) * dim);
    const found = exactSearch(matrix, queries, dim, k, MetricKind.L2sq) as BatchMatches;
    for (let q = 0; q < queries.length / dim; q++) {
      const row = [{ index: start + q, distance: 0 }];
      for (let h = 0; h < Number(found.counts[q]) && row.length < k; h++) {
        const index = Number(found.keys[q * found.k + h]);
        if (index !== start + q) row.push({ index, distance: Math.sqrt(Math.max(0, found.distances[q * found.k + h])) });
      }
      indices.push(row.map((hit) => hit.index));
      distances.push(row.map((hit) => hit.distance));
    }
    await nextTurn();
  }
  return { indices, distances };
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
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, positions[i * 2]);
    maxX = Math.max(maxX, positions[i * 2]);
    minY = Math.min(minY, positions[i * 2 + 1]);
    maxY = Math.max(maxY, positions[i * 2 + 1]);
  }
  const half = Math.max(maxX - minX, maxY - minY) / 2 || 1;
  const [cx, cy] = [(minX + maxX) / 2, (minY + maxY) / 2];
  for (let i = 0; i < n; i++) {
    positions[i * 2] = (positions[i * 2] - cx) / half;
    positions[i * 2 + 1] = (positions[i * 2 + 1] - cy) / half;
  }
  return positions;
}
