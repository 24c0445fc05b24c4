import { placeBatch } from '../../lib/clustering/placeBatch';

describe('placeBatch', () => {
  it('joins a batch group to the cluster of its strongest link above the cut-off, else makes a new cluster', () => {
    // Items 0-1 are near each other; 0 links weakly to A, 1 strongly to B; 2 links to nothing; 3 only below the cut-off.
    const inner = [{ a: 0, b: 1, similarity: 0.95 }];
    const links = [
      { item: 0, clusterId: 'A', similarity: 0.91 },
      { item: 1, clusterId: 'B', similarity: 0.97 },
      { item: 3, clusterId: 'A', similarity: 0.5 },
    ];
    expect(placeBatch(4, inner, links, 0.9)).toEqual([{ clusterId: 'B' }, { clusterId: 'B' }, { group: 2 }, { group: 3 }]);
    // A higher cut-off separates the pair and keeps only the strongest link.
    expect(placeBatch(4, inner, links, 0.96)).toEqual([{ group: 0 }, { clusterId: 'B' }, { group: 2 }, { group: 3 }]);
  });

  it('groups batch items among themselves when nothing existing is close', () => {
    expect(placeBatch(3, [{ a: 1, b: 2, similarity: 0.8 }], [], 0.7)).toEqual([{ group: 0 }, { group: 1 }, { group: 1 }]);
  });
});
