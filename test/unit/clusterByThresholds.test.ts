import { clusterByThresholds, CLUSTER_SIMILARITY_CUTOFFS, type SimilarityEdge } from '../../lib/clustering/clusterByThresholds';

/** Independent reference: connected components by breadth-first search, labelled by their smallest member. */
function componentsAt(itemCount: number, edges: SimilarityEdge[], cutoff: number): number[] {
  const adjacent = Array.from({ length: itemCount }, () => [] as number[]);
  for (const { a, b, similarity } of edges) {
    if (similarity < cutoff) continue;
    adjacent[a].push(b);
    adjacent[b].push(a);
  }
  const labels = new Array<number>(itemCount).fill(-1);
  for (let start = 0; start < itemCount; start++) {
    if (labels[start] !== -1) continue;
    // Visiting in index order, the first unlabelled item is the smallest of its component.
    const queue = [start];
    labels[start] = start;
    while (queue.length > 0) {
      for (const next of adjacent[queue.shift()!]) {
        if (labels[next] === -1) {
          labels[next] = start;
          queue.push(next);
        }
      }
    }
  }
  return labels;
}

function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('clusterByThresholds', () => {
  it('gives the connected components of a chain at each of the five cut-offs, finest first', () => {
    expect(CLUSTER_SIMILARITY_CUTOFFS).toEqual([0.9, 0.8, 0.7, 0.6, 0.5]);
    // 0 -0.95- 1 -0.85- 2 -0.65- 3 -0.75- 4 -0.55- 5, listed out of order and in both directions.
    const edges: SimilarityEdge[] = [
      { a: 5, b: 4, similarity: 0.55 },
      { a: 2, b: 3, similarity: 0.65 },
      { a: 1, b: 0, similarity: 0.95 },
      { a: 4, b: 3, similarity: 0.75 },
      { a: 2, b: 1, similarity: 0.85 },
    ];
    const levels = clusterByThresholds(6, edges).map((labels) => [...labels]);
    expect(levels).toEqual([
      [0, 0, 2, 3, 4, 5], // 0.9: only the near-identical pair
      [0, 0, 0, 3, 4, 5], // 0.8: 2 joins through 1
      [0, 0, 0, 3, 3, 5], // 0.7: a second cluster 3-4
      [0, 0, 0, 0, 0, 5], // 0.6: the bridge 2-3 merges them
      [0, 0, 0, 0, 0, 0], // 0.5: everything
    ]);
  });

  it('keeps an edge exactly at a cut-off and drops one just below it', () => {
    const levels = clusterByThresholds(3, [
      { a: 0, b: 1, similarity: 0.8 },
      { a: 1, b: 2, similarity: 0.7999 },
    ]);
    expect([...levels[0]]).toEqual([0, 1, 2]);
    expect([...levels[1]]).toEqual([0, 0, 2]);
    expect([...levels[2]]).toEqual([0, 0, 0]);
  });

  it('labels a cluster by its smallest member, whichever order the unions happened in', () => {
    // 7 joins 4 first, then 4 joins 9; item 2 stays alone. Labels must be 4 for all three.
    const levels = clusterByThresholds(10, [
      { a: 7, b: 9, similarity: 0.99 },
      { a: 9, b: 4, similarity: 0.98 },
    ]);
    expect([...levels[0]]).toEqual([0, 1, 2, 3, 4, 5, 6, 4, 8, 4]);
  });

  it('leaves unconnected items as their own clusters and handles an empty dataset', () => {
    expect(clusterByThresholds(3, []).map((labels) => [...labels])).toEqual(Array.from({ length: 5 }, () => [0, 1, 2]));
    expect(clusterByThresholds(0, [])).toEqual(Array.from({ length: 5 }, () => new Int32Array(0)));
  });

  it('returns one level per given cut-off', () => {
    const levels = clusterByThresholds(3, [{ a: 0, b: 2, similarity: 0.3 }], [0.5, 0.25]);
    expect(levels.map((labels) => [...labels])).toEqual([
      [0, 1, 2],
      [0, 1, 0],
    ]);
  });

  it('matches a breadth-first search on random graphs, and each level only merges clusters of the one before', () => {
    const random = seededRandom(42);
    for (let graph = 0; graph < 20; graph++) {
      const itemCount = 1 + Math.floor(random() * 40);
      const edges: SimilarityEdge[] = Array.from({ length: Math.floor(random() * itemCount * 1.5) }, () => ({
        a: Math.floor(random() * itemCount),
        b: Math.floor(random() * itemCount),
        similarity: 0.4 + random() * 0.6,
      }));
      const levels = clusterByThresholds(itemCount, edges);
      CLUSTER_SIMILARITY_CUTOFFS.forEach((cutoff, level) => {
        expect([...levels[level]]).toEqual(componentsAt(itemCount, edges, cutoff));
        if (level === 0) return;
        for (let i = 0; i < itemCount; i++) {
          for (let j = i + 1; j < itemCount; j++) {
            if (levels[level - 1][i] === levels[level - 1][j]) expect(levels[level][i]).toBe(levels[level][j]);
          }
        }
      });
    }
  });
});
