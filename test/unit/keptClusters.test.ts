import { keptClusters } from '../../lib/clustering/keptClusters';

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
