import type { Issue } from './imageIssues';

export interface Neighbour {
  index: number;
  similarity: number;
}

export interface NeighbourItem {
  /** Nearest first, the item itself excluded. */
  neighbours: Neighbour[];
  /** Items of the same group (frames of one video) are never each other's duplicates. */
  group?: string;
}

/** See docs/decisions.md ("Uniqueness, duplicates, outliers"). */
export const NEIGHBOUR_SCORING = {
  duplicateSimilarity: 0.9,
  /**
   * Pairs an item keeps: its nearest at duplicateSimilarity or more. With k pairs each, every group holds k + 1 items
   * or more, so a family of up to 2k + 1 copies tiered alike is one group; k = 3 covers an original with six copies.
   */
  duplicatePairs: 3,
  /**
   * Pairs a video frame keeps: every neighbour of another video its list holds (lib/clustering/ownVideoHits.ts keeps 3
   * of its own of GRAPH_K). Videos are one clip when half their frames pair (lib/quality/videoMatch.ts): with only 3,
   * a clip with five copies lost the pairs of its two most degraded copies with the others.
   */
  framePairs: 7,
  /** Cosine distance to the nearest neighbour at which an item counts as fully unique. */
  uniqueDistance: 0.5,
  outlierNeighbours: 5,
  outlierZ: 2.5,
  outlierMinItems: 20,
};

const clamp01 = (value: number) => Math.max(0, Math.min(1, value));

export interface NeighbourScores {
  uniqueness: number;
  issues: Issue[];
}

/** Distribution of the mean similarity to the 5 nearest neighbours over a dataset (outlier reference). */
export interface NeighbourStats {
  mean: number;
  std: number;
  items: number;
}

/** Mean similarity to an item's 5 nearest neighbours (0 without neighbours). */
export function meanTopK(item: NeighbourItem): number {
  const top = item.neighbours.slice(0, NEIGHBOUR_SCORING.outlierNeighbours);
  return top.length === 0 ? 0 : top.reduce((sum, n) => sum + n.similarity, 0) / top.length;
}

export function neighbourStats(items: NeighbourItem[]): NeighbourStats {
  return statsOfMeanTopK(items.map(meanTopK));
}

/** The distribution of items' meanTopK values (a typed array when the items are too many to hold as objects). */
export function statsOfMeanTopK(values: ArrayLike<number>): NeighbourStats {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  const mean = sum / Math.max(1, values.length);
  let squares = 0;
  for (let i = 0; i < values.length; i++) squares += (values[i] - mean) ** 2;
  return { mean, std: Math.sqrt(squares / Math.max(1, values.length)), items: values.length };
}

/** An item's outlier z-score against `reference` when it counts as an outlier (references of 20 items or more), else undefined. */
export function outlierZ(meanTopKValue: number, reference: NeighbourStats): number | undefined {
  const { mean, std, items } = reference;
  if (items < NEIGHBOUR_SCORING.outlierMinItems || std <= 0) return undefined;
  const z = (mean - meanTopKValue) / std;
  return z > NEIGHBOUR_SCORING.outlierZ ? z : undefined;
}

/**
 * uniqueness = cosine distance to the nearest neighbour / uniqueDistance, capped at 1 (0 for an
 * exact duplicate). Duplicates: the nearest neighbours of other groups at similarity >= 0.9, up to
 * duplicatePairs of them, in one issue: the nearest in `duplicate_of`/`similarity`, all in `pairs`.
 * Outliers: mean similarity to the 5 nearest is more than 2.5 standard deviations below the
 * mean of `reference` (by default the items themselves; datasets of 20 items or more).
 * `groupOf` tells the group of a neighbour index when neighbours are not all in `items`.
 */
export function scoreNeighbours(
  items: NeighbourItem[],
  ids: string[],
  options: { reference?: NeighbourStats; groupOf?: (index: number) => string | undefined } = {},
): NeighbourScores[] {
  const reference = options.reference ?? neighbourStats(items);
  const groupOf = options.groupOf ?? ((index: number) => items[index].group);

  return items.map((item) => {
    const nearest = item.neighbours[0];
    const issues: Issue[] = [];
    const pairs = item.neighbours
      .filter((n) => n.similarity >= NEIGHBOUR_SCORING.duplicateSimilarity && (item.group === undefined || groupOf(n.index) !== item.group))
      .slice(0, item.group === undefined ? NEIGHBOUR_SCORING.duplicatePairs : NEIGHBOUR_SCORING.framePairs)
      .map((n) => ({ duplicate_of: ids[n.index], similarity: n.similarity }));
    if (pairs.length > 0) issues.push({ type: 'duplicates', confidence: clamp01(pairs[0].similarity), details: { ...pairs[0], pairs } });
    const z = outlierZ(meanTopK(item), reference);
    if (z !== undefined) issues.push({ type: 'outliers', confidence: clamp01(0.5 + (z - NEIGHBOUR_SCORING.outlierZ) / 5), details: { z_score: z } });
    const uniqueness = nearest ? clamp01((1 - nearest.similarity) / NEIGHBOUR_SCORING.uniqueDistance) : 1;
    return { uniqueness, issues };
  });
}
