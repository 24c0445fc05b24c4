import { UMAP } from 'umap-js';
import { seededRandom } from './seededRandom';

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
  const data = vectors.map((vector) => Array.from(unitVector(vector)));
  const positions = data.length >= LEAST_FOR_UMAP ? await umapOf(data, seed) : principalPlane(data);
  return fitToUnitSquare(positions);
}

/** UMAP's epochs run one event-loop turn each (a 5,000-vector sample takes a minute on a busy machine), so the worker's heartbeats go on meanwhile. */
async function umapOf(data: number[][], seed: number): Promise<Float32Array> {
  const umap = new UMAP({ nComponents: 2, nNeighbors: Math.min(UMAP_NEIGHBOURS, data.length - 1), minDist: 0.1, random: seededRandom(seed) });
  return Float32Array.from((await umap.fitAsync(data)).flat());
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
