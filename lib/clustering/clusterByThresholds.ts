import { componentLabels, UnionFind } from './unionFind';

/** An undirected edge of the kNN similarity graph between items `a` and `b` (indexes). */
export interface SimilarityEdge {
  a: number;
  b: number;
  similarity: number;
}

/**
 * Cosine-similarity cut-offs of clustering thresholds 0-4: level 0 (finest) joins only near-identical
 * images, level 4 joins loosely similar ones. Calibrated on the image encoder (docs/decisions.md).
 */
export const CLUSTER_SIMILARITY_CUTOFFS = [0.9, 0.8, 0.7, 0.6, 0.5] as const;

/**
 * Connected components of the graph keeping only edges at or above each cut-off. Returns, per
 * threshold level, the component label of every item (labels are the smallest member index, so
 * they are stable for the same input).
 */
export function clusterByThresholds(
  itemCount: number,
  edges: SimilarityEdge[],
  cutoffs: readonly number[] = CLUSTER_SIMILARITY_CUTOFFS,
): Int32Array[] {
  const sorted = [...edges].sort((x, y) => y.similarity - x.similarity);
  const sets = new UnionFind(itemCount);
  const levels: Int32Array[] = [];
  let next = 0;
  // Cut-offs descend, so each level extends the previous one's unions.
  for (const cutoff of cutoffs) {
    while (next < sorted.length && sorted[next].similarity >= cutoff) {
      sets.union(sorted[next].a, sorted[next].b);
      next++;
    }
    levels.push(componentLabels(sets, itemCount));
  }
  return levels;
}
