import { adjustedRandIndex, agreementWithExact, duplicatePairs, identicalClusterShare, knnGraphOfHits, recallAtK } from '../../lib/vectors/neighbourAgreement';

const ids = ['a', 'b', 'c', 'd', 'e'];
const hit = (id: string, similarity: number) => ({ id, distance: 1 - similarity });

/** a-b near-identical, c-d similar (0.85), e alone; every item lists itself first, as a search of its own vector does. */
const exactHits = [
  [hit('a', 1), hit('b', 0.95), hit('c', 0.3)],
  [hit('b', 1), hit('a', 0.95), hit('d', 0.2)],
  [hit('c', 1), hit('d', 0.85), hit('a', 0.3)],
  [hit('d', 1), hit('c', 0.85), hit('b', 0.2)],
  [hit('e', 1), hit('a', 0.1), hit('unknown', 0.99)],
];

describe('agreement of a vector search with exact search', () => {
  it('builds the analysis graph from hits: the item itself and ids outside the set dropped, width kept', () => {
    const graph = knnGraphOfHits(exactHits, ids, 2);
    expect(Array.from(graph.degree)).toEqual([2, 2, 2, 2, 1]);
    expect(Array.from(graph.neighbour.subarray(0, 2))).toEqual([1, 2]);
    expect(graph.similarity[0]).toBeCloseTo(0.95);
    expect(graph.neighbour[8]).toBe(0);
  });

  it('counts a mutual pair once as a duplicate, only at or above the duplicate similarity', () => {
    expect([...duplicatePairs(knnGraphOfHits(exactHits, ids, 2))]).toEqual(['0:1']);
    expect([...duplicatePairs(knnGraphOfHits(exactHits, ids, 2), 0.8)].sort()).toEqual(['0:1', '2:3']);
  });

  it('scores identical answers as full agreement and a lost duplicate pair as lost', () => {
    const exact = knnGraphOfHits(exactHits, ids, 2);
    const same = agreementWithExact(knnGraphOfHits(exactHits, ids, 2), exact);
    expect(same).toMatchObject({ exact_duplicate_pairs: 1, duplicate_pairs_found: 1, duplicate_pair_recall: 1, extra_duplicate_pairs: 0, recall_at_10: 1 });
    expect(same.clusters.every((level) => level.adjusted_rand === 1 && level.identical_clusters === 1)).toBe(true);

    // Quantized scores that drop a-b under 0.9, and a search that misses the c-d pair from both sides.
    const lossy = exactHits.map((hits) => hits.map((h) => ((h.id === 'a' || h.id === 'b') && h.distance < 0.1 ? { ...h, distance: 0.11 } : h)));
    lossy[2] = [hit('c', 1), hit('a', 0.3)];
    lossy[3] = [hit('d', 1), hit('b', 0.2)];
    const worse = agreementWithExact(knnGraphOfHits(lossy, ids, 2), exact);
    expect(worse).toMatchObject({ duplicate_pairs_found: 0, duplicate_pair_recall: 0, extra_duplicate_pairs: 0 });
    expect(worse.recall_at_10).toBeCloseTo(7 / 9);
    expect(worse.clusters[0]).toMatchObject({ threshold: 0, identical_clusters: 0, exact_clusters: 4 });
    expect(worse.clusters[1].identical_clusters).toBe(0.5);
  });

  it('adjusted Rand: 1 for the same partition under other labels, below 1 for a different one, negative for one worse than chance', () => {
    expect(adjustedRandIndex(Int32Array.from([0, 0, 1, 1, 2]), Int32Array.from([5, 5, 7, 7, 9]))).toBe(1);
    expect(adjustedRandIndex(Int32Array.from([0, 0, 1, 1]), Int32Array.from([0, 1, 0, 1]))).toBeCloseTo(-0.5);
    const split = adjustedRandIndex(Int32Array.from([0, 0, 0, 0, 1, 1]), Int32Array.from([0, 0, 1, 1, 2, 2]));
    expect(split).toBeGreaterThan(0);
    expect(split).toBeLessThan(1);
    expect(identicalClusterShare(Int32Array.from([0, 0, 1, 1, 2]), Int32Array.from([0, 0, 2, 3, 4]))).toBe(1);
    expect(identicalClusterShare(Int32Array.from([0, 1, 1, 1, 2]), Int32Array.from([0, 0, 2, 2, 4]))).toBe(0);
  });

  it('recall@k counts the exact lists only up to k', () => {
    const exact = knnGraphOfHits(exactHits, ids, 2);
    const firstOnly = knnGraphOfHits(exactHits.map((hits) => hits.slice(0, 2)), ids, 2);
    expect(recallAtK(firstOnly, exact, 1)).toBe(1);
    expect(recallAtK(firstOnly, exact, 2)).toBeCloseTo(5 / 9);
  });
});
