import { randomUUID } from 'node:crypto';
import { uuidRanges } from '../../lib/uuidRanges';

describe('uuidRanges', () => {
  it('covers every id once, in contiguous ranges from the smallest id', () => {
    const ranges = uuidRanges(7);
    expect(ranges[0].from).toBe('00000000-0000-0000-0000-000000000000');
    expect(ranges.at(-1)!.to).toBeNull();
    for (let i = 1; i < ranges.length; i++) expect(ranges[i].from).toBe(ranges[i - 1].to);
    const ids = [...Array.from({ length: 2000 }, () => randomUUID()), '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'];
    for (const id of ids) {
      // uuids order as their hex text does (Postgres compares them byte by byte).
      expect(ranges.filter((range) => id >= range.from && (range.to === null || id < range.to))).toHaveLength(1);
    }
  });

  it('splits random ids about evenly', () => {
    const ranges = uuidRanges(4);
    const counts = ranges.map(() => 0);
    for (let n = 0; n < 40_000; n++) {
      const id = randomUUID();
      counts[ranges.findIndex((range) => id >= range.from && (range.to === null || id < range.to))]++;
    }
    for (const count of counts) expect(Math.abs(count - 10_000)).toBeLessThan(600);
  });

  it('is one range over everything when asked for one', () => {
    expect(uuidRanges(1)).toEqual([{ from: '00000000-0000-0000-0000-000000000000', to: null }]);
  });
});
