import { keptClusters, storedClustersAround } from '../../lib/clustering/keptClusters';

describe('keptClusters', () => {
  it('keeps a stored cluster unchanged when a component holds exactly its members', () => {
    const { keptOf, kept, changed } = keptClusters(Int32Array.from([0, 0, 2]), Int32Array.from([0, 0, 1]), Int32Array.from([2, 1]));
    expect([keptOf[0], keptOf[2]]).toEqual([0, 1]);
    expect([...kept, ...changed]).toEqual([1, 1, 0, 0]);
  });

  it('keeps a stored cluster that new items joined, as changed', () => {
    // 0 and 1 stored in cluster 0; new item 2 joins them.
    const { keptOf, kept, changed } = keptClusters(Int32Array.from([0, 0, 0]), Int32Array.from([0, 0, -1]), Int32Array.from([2]));
    expect(keptOf[0]).toBe(0);
    expect([...kept, ...changed]).toEqual([1, 1]);
  });

  it('on a merge, keeps the stored cluster with the most members and removes the other', () => {
    // Stored: cluster 0 = {0, 1, 2}, cluster 1 = {3}; now one component.
    const { keptOf, kept, changed } = keptClusters(Int32Array.from([0, 0, 0, 0]), Int32Array.from([0, 0, 0, 1]), Int32Array.from([3, 1]));
    expect(keptOf[0]).toBe(0);
    expect([...kept]).toEqual([1, 0]);
    expect(changed[0]).toBe(1);
  });

  it('on a split, the larger part keeps the stored cluster and the other opens a new one', () => {
    // Stored: cluster 0 = {0, 1, 2}; now {0, 1} and {2}.
    const { keptOf, kept, changed } = keptClusters(Int32Array.from([0, 0, 2]), Int32Array.from([0, 0, 0]), Int32Array.from([3]));
    expect([keptOf[0], keptOf[2]]).toEqual([0, -1]);
    expect([...kept, ...changed]).toEqual([1, 1]);
  });

  it('opens a new cluster for a component of new items only', () => {
    const { keptOf, kept } = keptClusters(Int32Array.from([0, 0, 2]), Int32Array.from([-1, -1, 0]), Int32Array.from([1]));
    expect([keptOf[0], keptOf[2]]).toEqual([-1, 0]);
    expect([...kept]).toEqual([1]);
  });
});

describe('storedClustersAround', () => {
  // Items a…h (ids sorted). Stored clusters: A = {a, b, c, d}, B = {e, f}, C = {g}, D = {h}.
  const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
  const stored = [
    ['a', 'A'],
    ['b', 'A'],
    ['c', 'A'],
    ['d', 'A'],
    ['e', 'B'],
    ['f', 'B'],
    ['g', 'C'],
    ['h', 'D'],
  ].map(([media_id, cluster_id]) => ({ media_id, cluster_id }));
  const asked: string[][] = [];
  const membershipsOf = async (of: { column: 'media_id' | 'cluster_id'; ids: readonly string[] }) => {
    asked.push([...of.ids]);
    return stored.filter((row) => of.ids.includes(row[of.column]));
  };

  it('reads and matches only the components around the changed items, a split-off part of a stored cluster included', async () => {
    // a's list changed: A split into {a, b} and {c, d}; a now links to g, so C joined {a, b}. B and D stay as stored.
    const labels = Int32Array.from([0, 0, 2, 2, 4, 4, 0, 7]);
    const changed = Uint8Array.from([1, 0, 0, 0, 0, 0, 0, 0]);
    asked.length = 0;
    const around = await storedClustersAround(labels, ids, (id) => ids.indexOf(id), changed, membershipsOf);

    expect([...around.affected].flatMap((flag, label) => (flag ? [label] : []))).toEqual([0, 2]);
    expect(asked.flat().sort()).toEqual(['A', 'a', 'g']);
    const storedIdOf = (label: number) => (around.keptOf[label] === -1 ? undefined : around.storedIds[around.keptOf[label]]);
    expect([storedIdOf(0), storedIdOf(2)].sort()).toEqual(['A', undefined].sort());
    // The part that keeps A changed (its counts are written again); the other part opens a new cluster; C is removed.
    const keptA = around.storedIds.indexOf('A');
    expect(around.changed[keptA]).toBe(1);
    expect(around.kept[around.storedIds.indexOf('C')]).toBe(0);
  });

  it('reads nothing when nothing changed', async () => {
    asked.length = 0;
    const around = await storedClustersAround(Int32Array.from([0, 0, 0, 0, 4, 4, 6, 7]), ids, (id) => ids.indexOf(id), new Uint8Array(8), membershipsOf);
    expect(around.affected.every((flag) => flag === 0)).toBe(true);
    expect(asked.flat()).toEqual([]);
  });
});
