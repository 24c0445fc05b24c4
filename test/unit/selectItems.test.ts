import { seededRandom } from '../../lib/map/seededRandom';
import { kMeans, selectItems, typicalityOf, type SelectionPool } from '../../lib/selection/selectItems';

const DIM = 8;
const unit = (values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (value) => value / norm);
};

/** Four tight groups along the first four axes (40, 30, 20 and 10 items), and two lone items opposite the first two. */
function pool(): SelectionPool & { groupOf: number[] } {
  const random = seededRandom(7);
  const vectors: Float32Array[] = [];
  const groupOf: number[] = [];
  [40, 30, 20, 10].forEach((size, group) => {
    for (let i = 0; i < size; i++) {
      vectors.push(unit(Array.from({ length: DIM }, (_, d) => (d === group ? 1 : 0) + (random() - 0.5) * 0.2)));
      groupOf.push(group);
    }
  });
  for (const axis of [0, 1]) {
    vectors.push(unit(Array.from({ length: DIM }, (_, d) => (d === axis ? -1 : 0))));
    groupOf.push(5 + axis);
  }
  return { vectors, dim: DIM, groupOf };
}

describe('choosing what to label', () => {
  it('typicality takes the most typical item of each group, the largest groups first', () => {
    const items = pool();
    const chosen = selectItems(items, 'typicality', 4, 52);
    expect(chosen.map((pick) => items.groupOf[pick.index])).toEqual([0, 1, 2, 3]);
    const typicality = typicalityOf(items);
    for (const pick of chosen) {
      const group = items.groupOf[pick.index];
      const most = Math.max(...items.groupOf.flatMap((g, i) => (g === group ? [typicality[i]] : [])));
      expect(typicality[pick.index]).toBe(most);
      expect(pick.reason).toMatch(/^most typical of a group of \d+ alike items$/);
    }
  });

  it('representativeness picks where items are worst represented, the largest groups first, with falling gains', () => {
    const items = pool();
    const chosen = selectItems(items, 'representative', 5);
    expect(chosen.slice(0, 3).map((pick) => items.groupOf[pick.index])).toEqual([0, 1, 2]);
    expect(new Set(chosen.map((pick) => items.groupOf[pick.index]))).toEqual(new Set([0, 1, 2, 3]));
    expect(chosen.map((pick) => pick.score)).toEqual([...chosen.map((pick) => pick.score)].sort((a, b) => b - a));
    expect(chosen[0].reason).toMatch(/^represents its neighbours better than any earlier pick \(gain \d+\.\d\d\)$/);
  });

  it('diversity and uniqueness reach the lone items first; coverage goes where the labelled items are not', () => {
    const items = pool();
    // The first pick is nearest the pool's centre (the largest group); the next, the item opposite it.
    expect(selectItems(items, 'diversity', 2).map((pick) => items.groupOf[pick.index])).toEqual([0, 5]);
    expect(selectItems(items, 'uniqueness', 2).map((pick) => items.groupOf[pick.index]).sort()).toEqual([5, 6]);
    const labelled = items.groupOf.flatMap((group, i) => (group === 0 || group === 1 || group >= 5 ? [i] : []));
    expect(new Set(selectItems({ ...items, labelled }, 'coverage', 2).map((pick) => items.groupOf[pick.index]))).toEqual(new Set([2, 3]));
  });

  it('gives the same items for the same seed', () => {
    const items = pool();
    expect(selectItems(items, 'typicality', 6, 3)).toEqual(selectItems(items, 'typicality', 6, 3));
    expect([...kMeans(items, 4, 9)]).toEqual([...kMeans(items, 4, 9)]);
  });
});
