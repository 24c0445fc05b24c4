import { keptClusters } from '../../lib/clustering/keptClusters';

describe('keptClusters', () => {
  it('keeps a component only when one stored cluster holds exactly its members', () => {
    // Items 0-1 as stored (cluster 0); 2-3 stored together with 4, which left them (cluster 1 split); 5 new joins 6 (cluster 2).
    const labels = Int32Array.from([0, 0, 2, 2, 4, 5, 5]);
    const storedOf = Int32Array.from([0, 0, 1, 1, 1, -1, 2]);
    const { keptOf, kept } = keptClusters(labels, storedOf, Int32Array.from([2, 3, 1]));
    expect([keptOf[0], keptOf[2], keptOf[4], keptOf[5]]).toEqual([0, -1, -1, -1]);
    expect([...kept]).toEqual([1, 0, 0]);
  });

  it('writes a merge of two stored clusters anew and keeps neither', () => {
    const { keptOf, kept } = keptClusters(Int32Array.from([0, 0, 0]), Int32Array.from([0, 0, 1]), Int32Array.from([2, 1]));
    expect(keptOf[0]).toBe(-1);
    expect([...kept]).toEqual([0, 0]);
  });
});
