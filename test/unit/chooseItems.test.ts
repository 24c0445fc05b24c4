import { seededRandom } from '../../lib/map/seededRandom';
import { apportion, chooseItems, DIRECT_ITEMS, sketchVectors, SKETCH_DIM } from '../../lib/selection/chooseItems';
import type { SelectionPool } from '../../lib/selection/selectItems';

const unit = (values: Float32Array) => {
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
};

/** `count` unit vectors of `dim` around `groups` random centres; each item's group. */
function pool(count: number, dim: number, groups: number, seed = 7): SelectionPool & { groupOf: Int32Array } {
  const random = seededRandom(seed);
  const centres = Array.from({ length: groups }, () => Float32Array.from({ length: dim }, () => random() - 0.5));
  const groupOf = Int32Array.from({ length: count }, (_, i) => i % groups);
  const vectors = Array.from(groupOf, (group) => unit(Float32Array.from(centres[group], (value) => value + (random() - 0.5) * 0.3)));
  return { vectors, dim, groupOf };
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, d) => sum + value * b[d], 0);

describe('choosing by a mix, balanced, at any size', () => {
  it('apportions by weight with largest remainders, within caps', () => {
    expect(apportion(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(apportion(10, [3, 1])).toEqual([8, 2]);
    expect(apportion(10, [1, 1, 1], [1, 100, 2])).toEqual([1, 7, 2]);
    expect(apportion(5, [1, 0])).toEqual([5, 0]);
  });

  it('gives each strategy of a mix its share, every item once, the same for a seed', async () => {
    const items = pool(300, 8, 6);
    const chosen = await chooseItems(items, { weights: { typicality: 2, diversity: 1 }, count: 30, seed: 5 });
    expect(chosen).toHaveLength(30);
    expect(new Set(chosen.map((pick) => pick.index)).size).toBe(30);
    expect(chosen.filter((pick) => pick.reason.startsWith('typicality: '))).toHaveLength(20);
    expect(chosen.filter((pick) => pick.reason.startsWith('diversity: '))).toHaveLength(10);
    expect(await chooseItems(items, { weights: { typicality: 2, diversity: 1 }, count: 30, seed: 5 })).toEqual(chosen);
  });

  it('splits a balanced budget evenly over the groups, a small group giving what it has', async () => {
    const items = pool(200, 8, 4);
    const groupOf = Int32Array.from(items.groupOf, (group, i) => (group === 3 && i >= 12 ? 0 : group));
    const chosen = await chooseItems(items, { weights: { uniqueness: 1 }, count: 20, seed: 1, balance: { groupOf, names: ['a', 'b', 'c', 'd'] } });
    const perGroup = [0, 1, 2, 3].map((group) => chosen.filter((pick) => groupOf[pick.index] === group).length);
    expect(perGroup).toEqual([6, 6, 5, 3]);
    expect(chosen.find((pick) => groupOf[pick.index] === 3)!.reason).toMatch(/\(3 of 3 in “d”\)$/);
  });

  it('chooses from a pool above the direct size by parts: the count asked, each once', async () => {
    const items = pool(DIRECT_ITEMS + 5_000, 8, 50);
    for (const strategy of ['typicality', 'diversity', 'representative'] as const) {
      const chosen = await chooseItems(items, { weights: { [strategy]: 1 }, count: 300, seed: 3 });
      expect(chosen).toHaveLength(300);
      expect(new Set(chosen.map((pick) => pick.index)).size).toBe(300);
      // Every group of the pool is reached.
      expect(new Set(chosen.map((pick) => items.groupOf[pick.index])).size).toBe(50);
    }
  }, 60_000);

  it('sketches long vectors into SKETCH_DIM dimensions that keep cosine similarities', () => {
    const items = pool(50, 1280, 5);
    const sketched = sketchVectors(items.vectors, 1280, 9);
    expect(sketched[0]).toHaveLength(SKETCH_DIM);
    for (let i = 1; i < 50; i++) expect(Math.abs(dot(sketched[0], sketched[i]) - dot(items.vectors[0], items.vectors[i]))).toBeLessThan(0.2);
  });
});
