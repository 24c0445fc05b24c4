import { exactSearch, MetricKind, type BatchMatches } from 'usearch';
import { seededRandom } from './seededRandom';
import { vectorMatrix } from '../vectors/vectorMatrix';

export interface Neighbour {
  index: number;
  similarity: number;
}

/** How far a point placed from its neighbours may land from their weighted centre (in layout units, [-1, 1] wide). */
export const PLACEMENT_JITTER = 0.01;

/**
 * Places unplaced items at the similarity-weighted centre of their placed kNN neighbours, pass after
 * pass (an item placed in a pass helps place the next ones), with a small seeded jitter so items
 * placed from the same neighbours do not stack. `positions` (x, y per item) and `placed` are updated
 * in place; returns the items no neighbour chain reached.
 */
export function placeFromNeighbours(
  positions: Float32Array,
  placed: Uint8Array,
  neighboursOf: (item: number) => readonly Neighbour[],
  candidates: readonly number[],
  seed = 42,
): number[] {
  const random = seededRandom(seed);
  let waiting = candidates.filter((item) => !placed[item]);
  for (;;) {
    const still: number[] = [];
    for (const item of waiting) {
      let weight = 0, x = 0, y = 0;
      for (const { index, similarity } of neighboursOf(item)) {
        if (!placed[index]) continue;
        const w = Math.max(similarity, 1e-3);
        weight += w;
        x += w * positions[index * 2];
        y += w * positions[index * 2 + 1];
      }
      if (weight === 0) {
        still.push(item);
        continue;
      }
      positions[item * 2] = x / weight + (random() - 0.5) * 2 * PLACEMENT_JITTER;
      positions[item * 2 + 1] = y / weight + (random() - 0.5) * 2 * PLACEMENT_JITTER;
      placed[item] = 1;
    }
    if (still.length === waiting.length) return still;
    waiting = still;
  }
}

/**
 * The index of the row of `sample` (unit vectors, `dim` each, as one matrix) nearest by cosine to each of `vectors`:
 * usearch's exact search (SIMD, all cores), since a map of many small groups no neighbour chain links to the sample
 * asks this for one member of each.
 */
export function nearestRows(vectors: readonly Float32Array[], sample: Float32Array, dim: number): number[] {
  if (vectors.length === 0) return [];
  const matches = exactSearch(sample, vectorMatrix(vectors, dim), dim, 1, MetricKind.Cos) as BatchMatches;
  return vectors.map((_, i) => Number(matches.keys[i * matches.k]));
}
