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

/**
 * uniqueness = cosine distance to the nearest neighbour / uniqueDistance, capped at 1 (0 for an
 * exact duplicate). Duplicates: nearest neighbour of another group at similarity >= 0.9.
 * Outliers: mean similarity to the 5 nearest is more than 2.5 standard deviations below the
 * dataset's mean (datasets of 20 items or more).
 */
export function scoreNeighbours(items: NeighbourItem[], ids: string[]): NeighbourScores[] {
  const k = NEIGHBOUR_SCORING.outlierNeighbours;
  const meanTopK = items.map((item) => {
    const top = item.neighbours.slice(0, k);
    return top.length === 0 ? 0 : top.reduce((sum, n) => sum + n.similarity, 0) / top.length;
  });
  const mean = meanTopK.reduce((sum, value) => sum + value, 0) / Math.max(1, meanTopK.length);
  const std = Math.sqrt(meanTopK.reduce((sum, value) => sum + (value - mean) ** 2, 0) / Math.max(1, meanTopK.length));

  return items.map((item, i) => {
    const nearest = item.neighbours[0];
    const issues: Issue[] = [];
    const duplicate = item.neighbours.find(
      (n) => n.similarity >= NEIGHBOUR_SCORING.duplicateSimilarity && (item.group === undefined || items[n.index].group !== item.group),
    );
    if (duplicate) {
      issues.push({
        type: 'duplicates',
        confidence: clamp01(duplicate.similarity),
        details: { similarity: duplicate.similarity, duplicate_of: ids[duplicate.index] },
      });
    }
    if (items.length >= NEIGHBOUR_SCORING.outlierMinItems && std > 0) {
      const z = (mean - meanTopK[i]) / std;
      if (z > NEIGHBOUR_SCORING.outlierZ) {
        issues.push({ type: 'outliers', confidence: clamp01(0.5 + (z - NEIGHBOUR_SCORING.outlierZ) / 5), details: { z_score: z } });
      }
    }
    const uniqueness = nearest ? clamp01((1 - nearest.similarity) / NEIGHBOUR_SCORING.uniqueDistance) : 1;
    return { uniqueness, issues };
  });
}
