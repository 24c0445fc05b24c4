import { setImmediate as nextTurn } from 'node:timers/promises';
import { seededRandom } from './seededRandom';

/**
 * Each of `count` items' `k` nearest other items (row-major, nearest first; -1 where a row has fewer) and their
 * Euclidean distances.
 */
export interface NearestRows {
  count: number;
  k: number;
  indices: Int32Array;
  distances: Float32Array;
}

/** umap-learn's curve for min_dist 0.1, spread 1 (its find_ab_params): how near a neighbour may sit on the map. */
export const CURVE_A = 1.5769434603113077;
export const CURVE_B = 0.8950608781227859;
const NEGATIVE_SAMPLE_RATE = 5;
const GRADIENT_CLIP = 4;
/** Epochs run in one event-loop turn for at most this long, so the worker's heartbeat timer goes on meanwhile. */
export const TURN_MS = 50;

/**
 * The fuzzy graph UMAP optimises (umap-learn's fuzzy_simplicial_set, local connectivity 1): each row's distances
 * turned into memberships that sum to log2(k + 1), then the fuzzy union of both directions. Returns every directed edge
 * once in each direction, with its weight, row by row (typed arrays throughout: a million rows take ~300 MB).
 */
export function fuzzyGraph({ count, k, indices, distances }: NearestRows): { heads: Int32Array; tails: Int32Array; weights: Float32Array } {
  // k others and the point itself, as umap-learn counts n_neighbors.
  const target = Math.log2(k + 1);
  // Each row slot's membership; -1 where the slot is empty, the point itself or a repeat.
  const membership = new Float32Array(count * k).fill(-1);
  let meanOfAll = 0;
  let rows = 0;
  for (let i = 0; i < count; i++) {
    let sum = 0, found = 0;
    for (let h = 0; h < k && indices[i * k + h] !== -1; h++, found++) sum += distances[i * k + h];
    if (found === 0) continue;
    meanOfAll += sum / found;
    rows++;
  }
  meanOfAll /= rows || 1;
  for (let i = 0; i < count; i++) {
    const row = i * k;
    let found = 0;
    while (found < k && indices[row + found] !== -1) found++;
    if (found === 0) continue;
    // The nearest neighbour at a distance is a full member (local connectivity 1).
    let rho = Infinity;
    for (let h = 0; h < found; h++) if (distances[row + h] > 0) rho = Math.min(rho, distances[row + h]);
    if (rho === Infinity) rho = 0;
    // The scale whose memberships sum to the target, by bisection.
    let lo = 0, hi = Infinity, sigma = 1;
    for (let iteration = 0; iteration < 64; iteration++) {
      let sum = 0;
      for (let h = 0; h < found; h++) {
        const d = distances[row + h] - rho;
        sum += d > 0 ? Math.exp(-d / sigma) : 1;
      }
      if (Math.abs(sum - target) < 1e-5) break;
      if (sum > target) hi = sigma;
      else lo = sigma;
      sigma = hi === Infinity ? sigma * 2 : (lo + hi) / 2;
    }
    let mean = 0;
    for (let h = 0; h < found; h++) mean += distances[row + h] / found;
    sigma = Math.max(sigma, 1e-3 * (rho > 0 ? mean : meanOfAll));
    for (let h = 0; h < found; h++) {
      const j = indices[row + h];
      let repeat = j === i;
      for (let before = row; before < row + h && !repeat; before++) repeat = indices[before] === j;
      if (repeat) continue;
      const d = distances[row + h] - rho;
      membership[row + h] = d <= 0 || sigma === 0 ? 1 : Math.exp(-d / sigma);
    }
  }
  /** The membership of j → i, or -1 if j's row does not list i. */
  const reverseOf = (i: number, j: number) => {
    for (let h = j * k; h < (j + 1) * k; h++) if (indices[h] === i && membership[h] !== -1) return membership[h];
    return -1;
  };
  let edges = 0;
  for (let slot = 0; slot < count * k; slot++) {
    if (membership[slot] !== -1) edges += reverseOf(Math.floor(slot / k), indices[slot]) === -1 ? 2 : 1;
  }
  const heads = new Int32Array(edges);
  const tails = new Int32Array(edges);
  const weights = new Float32Array(edges);
  let e = 0;
  for (let slot = 0; slot < count * k; slot++) {
    const weight = membership[slot];
    if (weight === -1) continue;
    const [i, j] = [Math.floor(slot / k), indices[slot]];
    const reverse = reverseOf(i, j);
    const union = reverse === -1 ? weight : weight + reverse - weight * reverse;
    [heads[e], tails[e], weights[e++]] = [i, j, union];
    if (reverse === -1) [heads[e], tails[e], weights[e++]] = [j, i, union];
  }
  return { heads, tails, weights };
}

/** A gradient step limited to ±GRADIENT_CLIP, as umap-learn's. */
export const clip = (value: number) => (value > GRADIENT_CLIP ? GRADIENT_CLIP : value < -GRADIENT_CLIP ? -GRADIENT_CLIP : value);

/**
 * A 2-D UMAP layout (x0, y0, x1, y1, …) of the items of `nearest`, from `initial` positions (spread over about
 * [-10, 10]): umap-learn's stochastic gradient descent with negative sampling on typed arrays, seeded, so the same
 * input gives the same layout. Epochs run in turns of at most TURN_MS.
 */
export async function umapLayout(nearest: NearestRows, initial: Float32Array, options: { epochs: number; seed: number }): Promise<Float32Array> {
  const { epochs } = options;
  const { heads, tails, weights } = fuzzyGraph(nearest);
  const embedding = Float32Array.from(initial);
  const random = seededRandom(options.seed);
  let maxWeight = 0;
  for (const weight of weights) maxWeight = Math.max(maxWeight, weight);
  // An edge is sampled in proportion to its weight; one too weak to be sampled once in all the epochs is left out.
  const edges: number[] = [];
  for (let e = 0; e < weights.length; e++) if (weights[e] >= maxWeight / epochs) edges.push(e);
  const epochsPerSample = Float64Array.from(edges, (e) => maxWeight / weights[e]);
  const epochsPerNegative = epochsPerSample.map((value) => value / NEGATIVE_SAMPLE_RATE);
  const nextSample = Float64Array.from(epochsPerSample);
  const nextNegative = Float64Array.from(epochsPerNegative);
  const count = nearest.count;
  const [a, b] = [CURVE_A, CURVE_B];

  let turnStarted = Date.now();
  for (let epoch = 0; epoch < epochs; epoch++) {
    const alpha = 1 - epoch / epochs;
    for (let s = 0; s < edges.length; s++) {
      if (nextSample[s] > epoch) continue;
      const j = heads[edges[s]] * 2;
      const k = tails[edges[s]] * 2;
      let dx = embedding[j] - embedding[k];
      let dy = embedding[j + 1] - embedding[k + 1];
      let d2 = dx * dx + dy * dy;
      if (d2 > 0) {
        const powered = Math.pow(d2, b);
        const pull = (-2 * a * b * powered) / d2 / (a * powered + 1);
        const gx = clip(pull * dx) * alpha;
        const gy = clip(pull * dy) * alpha;
        embedding[j] += gx;
        embedding[j + 1] += gy;
        embedding[k] -= gx;
        embedding[k + 1] -= gy;
      }
      nextSample[s] += epochsPerSample[s];
      const negatives = Math.floor((epoch - nextNegative[s]) / epochsPerNegative[s]);
      for (let p = 0; p < negatives; p++) {
        const other = Math.floor(random() * count) * 2;
        if (other === j) continue;
        dx = embedding[j] - embedding[other];
        dy = embedding[j + 1] - embedding[other + 1];
        d2 = dx * dx + dy * dy;
        if (d2 > 0) {
          const push = (2 * b) / ((0.001 + d2) * (a * Math.pow(d2, b) + 1));
          embedding[j] += clip(push * dx) * alpha;
          embedding[j + 1] += clip(push * dy) * alpha;
        } else {
          embedding[j] += GRADIENT_CLIP * alpha;
          embedding[j + 1] += GRADIENT_CLIP * alpha;
        }
      }
      nextNegative[s] += negatives * epochsPerNegative[s];
    }
    if (Date.now() - turnStarted >= TURN_MS) {
      await nextTurn();
      turnStarted = Date.now();
    }
  }
  return embedding;
}
