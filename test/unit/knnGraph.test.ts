import { clusterByThresholds, CLUSTER_SIMILARITY_CUTOFFS, type SimilarityEdge } from '../../lib/clustering/clusterByThresholds';
import { componentCounts } from '../../lib/clustering/componentCounts';
import { addKnnHits, clusterKnnGraph, emptyKnnGraph, encodeKnnHits, meanTopKIn, neighboursIn, undirectedEdgeCount, type KnnGraph } from '../../lib/clustering/knnGraph';
import { seededRandom } from '../../lib/map/seededRandom';
import { meanTopK, neighbourStats, statsOfMeanTopK, type NeighbourItem } from '../../lib/quality/neighbourScores';

interface Hit {
  source: number;
  target: number;
  similarity: number;
}

/** Each of `count` items with up to `k` random neighbours, nearest first, some of them mutual. */
function randomHits(count: number, k: number, seed: number): Hit[] {
  const random = seededRandom(seed);
  const hits: Hit[] = [];
  for (let source = 0; source < count; source++) {
    const targets = new Set<number>();
    for (let h = 0; h < k; h++) {
      const target = Math.floor(random() * count);
      if (target !== source) targets.add(target);
    }
    const similarities = [...targets].map(() => 0.3 + random() * 0.7).sort((x, y) => y - x);
    [...targets].forEach((target, h) => hits.push({ source, target, similarity: similarities[h] }));
  }
  return hits;
}

/** The graph of `hits` stored as chunks of `chunkSize` searched items, read back. */
function storedGraph(count: number, width: number, hits: Hit[], chunkSize: number): KnnGraph {
  const graph = emptyKnnGraph(count, width);
  for (let start = 0; start < count; start += chunkSize) {
    const chunk = hits.filter((hit) => hit.source >= start && hit.source < start + chunkSize);
    addKnnHits(graph, encodeKnnHits(chunk.map((h) => h.source), chunk.map((h) => h.target), chunk.map((h) => h.similarity)));
  }
  return graph;
}

/** The undirected edges analyzeDataset builds from the same hits (each pair once). */
function edgesAsBefore(count: number, hits: Hit[]): SimilarityEdge[] {
  const neighbours = Array.from({ length: count }, () => [] as number[]);
  const edges: SimilarityEdge[] = [];
  for (const { source: a, target: j, similarity } of hits) {
    neighbours[a].push(j);
    if (j > a || !neighbours[j].includes(a)) edges.push({ a: Math.min(a, j), b: Math.max(a, j), similarity });
  }
  return edges;
}

describe('the kNN graph in typed arrays', () => {
  it('reads back every stored hit in order, whatever the chunking', () => {
    const hits = randomHits(50, 6, 3);
    const graph = storedGraph(50, 6, hits, 7);
    for (let i = 0; i < 50; i++) {
      expect(neighboursIn(graph, i)).toEqual(hits.filter((hit) => hit.source === i).map((hit) => ({ index: hit.target, similarity: hit.similarity })));
    }
  });

  it('keeps similarities exactly (float64), so cut-offs and scores see the same numbers', () => {
    const graph = storedGraph(2, 1, [{ source: 0, target: 1, similarity: 1 - 0.10000000149011612 }], 1);
    expect(neighboursIn(graph, 0)[0].similarity).toBe(1 - 0.10000000149011612);
  });

  it('refuses more hits for an item than it has slots', () => {
    const graph = emptyKnnGraph(2, 1);
    expect(() => addKnnHits(graph, encodeKnnHits([0, 0], [1, 1], [0.9, 0.8]))).toThrow('item 0 has more than 1 stored neighbours');
  });

  it.each([1, 2, 3, 4, 5])('clusters exactly as clusterByThresholds does over the edges analyzeDataset builds (seed %i)', (seed) => {
    const count = 400;
    const hits = randomHits(count, 4, seed);
    const edges = edgesAsBefore(count, hits);
    const graph = storedGraph(count, 4, hits, 64);
    expect(clusterKnnGraph(graph, CLUSTER_SIMILARITY_CUTOFFS)).toEqual(clusterByThresholds(count, edges));
    expect(undirectedEdgeCount(graph)).toBe(edges.length);
  });

  it('finds clusters that are not all singletons in that comparison (the test can tell a wrong answer)', () => {
    const levels = clusterKnnGraph(storedGraph(400, 4, randomHits(400, 4, 1), 64), CLUSTER_SIMILARITY_CUTOFFS);
    const componentsAt = (labels: Int32Array) => new Set(labels).size;
    expect(componentsAt(levels[4])).toBeLessThan(componentsAt(levels[0]));
    expect(componentsAt(levels[0])).toBeLessThan(400);
  });

  it('gives the outlier reference neighbourStats gives over the same items', () => {
    const graph = storedGraph(100, 5, randomHits(100, 5, 9), 10);
    const items: NeighbourItem[] = Array.from({ length: 100 }, (_, i) => ({ neighbours: neighboursIn(graph, i) }));
    expect(statsOfMeanTopK(Float64Array.from(items, meanTopK))).toEqual(neighbourStats(items));
  });

  it('reads each item\'s meanTopK in place, as meanTopK gives it from the item\'s neighbours (none, fewer than 5, more)', () => {
    // Item 0 without neighbours, item 1 with its nearest 3 only.
    const hits = randomHits(100, 11, 4).filter((hit, _, all) => hit.source !== 0 && (hit.source !== 1 || all.indexOf(hit) < all.findIndex((first) => first.source === 1) + 3));
    const graph = storedGraph(100, 11, hits, 10);
    expect([graph.degree[0], graph.degree[1], Math.max(...graph.degree)]).toEqual([0, 3, 11]);
    for (let i = 0; i < 100; i++) expect(meanTopKIn(graph, i)).toBe(meanTopK({ neighbours: neighboursIn(graph, i) }));
  });
});

describe('componentCounts', () => {
  it('counts members, frames and distinct videos per component', () => {
    // Components 0 {0, 1, 2, 4} and 3 {3, 5}; items 1, 2 are frames of video 0, item 4 of video 1, item 5 of video 0.
    const labels = Int32Array.from([0, 0, 0, 3, 0, 3]);
    const videoOf = Int32Array.from([-1, 0, 0, -1, 1, 0]);
    const counts = componentCounts(labels, videoOf);
    expect([counts.size[0], counts.frames[0], counts.videos[0]]).toEqual([4, 3, 2]);
    expect([counts.size[3], counts.frames[3], counts.videos[3]]).toEqual([2, 1, 1]);
  });
});
