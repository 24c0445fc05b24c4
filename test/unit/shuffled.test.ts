import { shuffled } from '../../lib/map/shuffled';

describe('shuffled', () => {
  const items = [...Array(1000).keys()];

  it('is a permutation of the items, the same for the same seed and another for another seed', () => {
    const once = shuffled(items, 11);
    expect([...once].sort((a, b) => a - b)).toEqual(items);
    expect(shuffled(items, 11)).toEqual(once);
    expect(shuffled(items, 12)).not.toEqual(once);
    expect(items).toEqual([...Array(1000).keys()]);
  });

  it('makes any first part an even sample: the first tenth holds about a tenth of each tenth of the items', () => {
    const first = shuffled(items, 11).slice(0, 100);
    for (let decile = 0; decile < 10; decile++) {
      const inDecile = first.filter((item) => Math.floor(item / 100) === decile).length;
      expect(inDecile).toBeGreaterThan(2);
      expect(inDecile).toBeLessThan(20);
    }
  });
});
