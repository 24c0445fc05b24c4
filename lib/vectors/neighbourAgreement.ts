import { CLUSTER_SIMILARITY_CUTOFFS } from '../clustering/clusterByThresholds';
import { clusterKnnGraph, edgeSlots, emptyKnnGraph, type KnnGraph } from '../clustering/knnGraph';
import { NEIGHBOUR_SCORING } from '../quality/neighbourScores';
import type { VectorHit } from './vectorStore';

/**
 * How far the answers of an approximate or quantized vector search agree with exact float32 search, in the terms the
 * service uses them: duplicate pairs, top-k neighbours and Explore's clusters (docs/models.md "Quantized vectors").
 */

/** The kNN graph the analysis builds from each item's hits (the item itself and ids outside `indexOf` dropped), `width` neighbours each. */
export function knnGraphOfHits(hits: VectorHit[][], ids: readonly string[], width: number): KnnGraph {
  const indexOf = new Map(ids.map((id, i) => [id, i]));
  const graph = emptyKnnGraph(ids.length, width);
  hits.forEach((itemHits, i) => {
    for (const hit of itemHits) {
      const j = indexOf.get(hit.id);
      if (j === undefined || j === i || graph.degree[i] >= width) continue;
      graph.neighbour[i * width + graph.degree[i]] = j;
      graph.similarity[i * width + graph.degree[i]] = 1 - hit.distance;
      graph.degree[i]++;
    }
  });
  return graph;
}

/** The graph's undirected edges at or above the duplicate similarity, as "a:b" with a < b. */
export function duplicatePairs(graph: KnnGraph, atLeast = NEIGHBOUR_SCORING.duplicateSimilarity): Set<string> {
  const edges = edgeSlots(graph);
  const pairs = new Set<string>();
  for (let a = 0; a < graph.count; a++) {
    for (let slot = a * graph.width; slot < a * graph.width + graph.degree[a]; slot++) {
      const b = graph.neighbour[slot];
      if (edges[slot] === 1 && graph.similarity[slot] >= atLeast) pairs.add(a < b ? `${a}:${b}` : `${b}:${a}`);
    }
  }
  return pairs;
}

/** Share of the exact graph's first `k` neighbours (over every item) that `found` also lists among its first `k`. */
export function recallAtK(found: KnnGraph, exact: KnnGraph, k: number): number {
  let wanted = 0;
  let seen = 0;
  for (let i = 0; i < exact.count; i++) {
    const listed = new Set(found.neighbour.subarray(i * found.width, i * found.width + Math.min(k, found.degree[i])));
    for (let slot = i * exact.width; slot < i * exact.width + Math.min(k, exact.degree[i]); slot++) {
      wanted++;
      if (listed.has(exact.neighbour[slot])) seen++;
    }
  }
  return wanted === 0 ? 1 : seen / wanted;
}

const pairsOf = (n: number) => (n * (n - 1)) / 2;

/** Adjusted Rand index of two labellings of the same items: 1 identical partitions, ~0 as alike as chance. */
export function adjustedRandIndex(x: Int32Array, y: Int32Array): number {
  const joint = new Map<string, number>();
  const rows = new Map<number, number>();
  const columns = new Map<number, number>();
  for (let i = 0; i < x.length; i++) {
    joint.set(`${x[i]}:${y[i]}`, (joint.get(`${x[i]}:${y[i]}`) ?? 0) + 1);
    rows.set(x[i], (rows.get(x[i]) ?? 0) + 1);
    columns.set(y[i], (columns.get(y[i]) ?? 0) + 1);
  }
  const sum = (counts: Iterable<number>) => [...counts].reduce((total, n) => total + pairsOf(n), 0);
  const index = sum(joint.values());
  const rowPairs = sum(rows.values());
  const columnPairs = sum(columns.values());
  const expected = (rowPairs * columnPairs) / Math.max(1, pairsOf(x.length));
  const maximum = (rowPairs + columnPairs) / 2;
  return maximum === expected ? 1 : (index - expected) / (maximum - expected);
}

/** Share of the exact labelling's clusters of two or more items that `found` has with exactly the same members. */
export function identicalClusterShare(found: Int32Array, exact: Int32Array): number {
  const members = (labels: Int32Array) => {
    const groups = new Map<number, number[]>();
    labels.forEach((label, i) => {
      const group = groups.get(label);
      if (group) group.push(i);
      else groups.set(label, [i]);
    });
    return new Set([...groups.values()].filter((group) => group.length > 1).map((group) => group.join(',')));
  };
  const wanted = members(exact);
  const have = members(found);
  return wanted.size === 0 ? 1 : [...wanted].filter((group) => have.has(group)).length / wanted.size;
}

export interface Agreement {
  /** Duplicate pairs of the exact graph, and the share of them `found` has. */
  exact_duplicate_pairs: number;
  duplicate_pairs_found: number;
  duplicate_pair_recall: number;
  /** Pairs `found` calls duplicates that exact search does not. */
  extra_duplicate_pairs: number;
  recall_at_10: number;
  /** Per clustering threshold 0-4: adjusted Rand index and share of exact clusters found identical. */
  clusters: Array<{ threshold: number; adjusted_rand: number; identical_clusters: number; exact_clusters: number }>;
}

/** `found` against `exact`: both kNN graphs of the same items, as knnGraphOfHits builds them. */
export function agreementWithExact(found: KnnGraph, exact: KnnGraph): Agreement {
  const wanted = duplicatePairs(exact);
  const have = duplicatePairs(found);
  const common = [...wanted].filter((pair) => have.has(pair)).length;
  const foundLevels = clusterKnnGraph(found, CLUSTER_SIMILARITY_CUTOFFS);
  const exactLevels = clusterKnnGraph(exact, CLUSTER_SIMILARITY_CUTOFFS);
  return {
    exact_duplicate_pairs: wanted.size,
    duplicate_pairs_found: common,
    duplicate_pair_recall: wanted.size === 0 ? 1 : common / wanted.size,
    extra_duplicate_pairs: have.size - common,
    recall_at_10: recallAtK(found, exact, 10),
    clusters: exactLevels.map((labels, threshold) => ({
      threshold,
      adjusted_rand: adjustedRandIndex(foundLevels[threshold], labels),
      identical_clusters: identicalClusterShare(foundLevels[threshold], labels),
      exact_clusters: new Set(labels).size,
    })),
  };
}
