import { extendGraph, placeMap, placesIn } from '../../lib/clustering/incrementalGraph';
import { addKnnHits, emptyKnnGraph, encodeKnnHits, encodeLists, enterNeighbour, neighboursIn, type KnnGraph } from '../../lib/clustering/knnGraph';
import { seededRandom } from '../../lib/map/seededRandom';

const K = 4;

/** Random unit vectors in `dim` dimensions. */
function randomVectors(count: number, dim: number, seed: number): number[][] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const v = Array.from({ length: dim }, () => random() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i], 0);

/** Item i's `k` nearest among the first `count` vectors (self excluded), nearest first: an exact search. */
function nearest(vectors: number[][], count: number, i: number, k: number) {
  return Array.from({ length: count }, (_, j) => j)
    .filter((j) => j !== i)
    .map((j) => ({ j, similarity: dot(vectors[i], vectors[j]) }))
    .sort((x, y) => y.similarity - x.similarity)
    .slice(0, k);
}

function listsBlob(vectors: number[][], count: number, items: number[], k: number): Buffer {
  const hits = items.flatMap((i) => nearest(vectors, count, i, k).map(({ j, similarity }) => ({ i, j, similarity })));
  return encodeKnnHits(hits.map((h) => h.i), hits.map((h) => h.j), hits.map((h) => h.similarity));
}

const lists = (graph: KnnGraph) => Array.from({ length: graph.count }, (_, i) => neighboursIn(graph, i));

describe('extending a stored kNN graph with new items', () => {
  it('equals the graph searched in full when each new item enters the lists of the existing items among its nearest', () => {
    const vectors = randomVectors(60, 6, 3);
    const old = Array.from({ length: 50 }, (_, i) => i);
    const added = Array.from({ length: 10 }, (_, i) => 50 + i);
    // The stored graph of the first 50, chunk 0; then the new items' lists, chunk 1.
    const graph = emptyKnnGraph(60, K + 1);
    addKnnHits(graph, listsBlob(vectors, 50, old, K), 0);
    addKnnHits(graph, listsBlob(vectors, 60, added, K), 1);
    const changed = new Set<number>();
    for (const n of added) {
      for (const { j, similarity } of nearest(vectors, 60, n, 30)) {
        if (j < 50 && enterNeighbour(graph, j, n, similarity, K)) changed.add(j);
      }
    }
    expect(changed.size).toBeGreaterThan(0);
    // Stored as a later chunk, the changed lists replace the earlier ones when the graph is read back.
    const reread = emptyKnnGraph(60, K + 1);
    addKnnHits(reread, listsBlob(vectors, 50, old, K), 0);
    addKnnHits(reread, listsBlob(vectors, 60, added, K), 1);
    addKnnHits(reread, encodeLists(graph, [...changed]), 2);

    const full = emptyKnnGraph(60, K + 1);
    addKnnHits(full, listsBlob(vectors, 60, [...old, ...added], K), 0);
    expect(lists(reread)).toEqual(lists(full));
    expect(lists(graph)).toEqual(lists(full));
  });

  it('enters a neighbour only when nearer than the last of a full list, keeps the list sorted, and never twice', () => {
    const graph = emptyKnnGraph(5, 3);
    addKnnHits(graph, encodeKnnHits([0, 0], [1, 2], [0.9, 0.5]));
    expect(enterNeighbour(graph, 0, 3, 0.7, 2)).toBe(true);
    expect(neighboursIn(graph, 0)).toEqual([{ index: 1, similarity: 0.9 }, { index: 3, similarity: 0.7 }]);
    expect(enterNeighbour(graph, 0, 4, 0.7, 2)).toBe(false);
    expect(enterNeighbour(graph, 0, 3, 0.8, 2)).toBe(false);
    expect(enterNeighbour(graph, 0, 4, 0.95, 3)).toBe(true);
    expect(neighboursIn(graph, 0).map((n) => n.index)).toEqual([4, 1, 3]);
  });

  const stored = { vectorSpaceId: 'space', ids: ['b', 'd', 'f'], searched: Uint8Array.from([1, 0, 1]) };

  it('searches the items added since and those embedded since, new ones after the stored ordinals', () => {
    const current = { vectorSpaceId: 'space', ids: ['a', 'b', 'd', 'f'], embedded: Uint8Array.from([1, 1, 1, 1]) };
    expect(extendGraph(stored, current, 0.5)).toEqual({ kind: 'incremental', ids: ['b', 'd', 'f', 'a'], searched: Uint8Array.from([1, 1, 1, 1]), searching: [1, 3] });
    expect(placesIn(placeMap(current.ids), ['b', 'd', 'f', 'a'])).toEqual(Int32Array.from([1, 2, 3, 0]));
  });

  it('rebuilds in full without a stored graph, in another vector space, after a removal, a lost vector, or past the share', () => {
    const current = { vectorSpaceId: 'space', ids: ['a', 'b', 'd', 'f'], embedded: Uint8Array.from([1, 1, 1, 1]) };
    expect(extendGraph(undefined, current, 0.5)).toEqual({ kind: 'full', reason: 'the version has no complete stored graph' });
    expect(extendGraph({ ...stored, vectorSpaceId: 'other' }, current, 0.5)).toEqual({ kind: 'full', reason: 'the vector space changed' });
    expect(extendGraph(stored, { ...current, ids: ['a', 'b', 'f', 'g'] }, 0.5)).toEqual({ kind: 'full', reason: 'media were removed' });
    expect(extendGraph(stored, { ...current, embedded: Uint8Array.from([1, 1, 1, 0]) }, 0.5)).toEqual({ kind: 'full', reason: 'media lost their vectors' });
    expect(extendGraph(stored, current, 0.49)).toEqual({ kind: 'full', reason: '2 of 4 media are new' });
  });
});
