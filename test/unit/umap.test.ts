import { fuzzyGraph, umapLayout, type NearestRows } from '../../lib/map/umap';
import { seededRandom } from '../../lib/map/seededRandom';

/** Points on a line at 0, 1, 2, …: each one's `k` nearest others by distance. */
function line(count: number, k: number): NearestRows {
  const indices = new Int32Array(count * k).fill(-1);
  const distances = new Float32Array(count * k);
  for (let i = 0; i < count; i++) {
    const others = Array.from({ length: count }, (_, j) => j).filter((j) => j !== i).sort((a, b) => Math.abs(a - i) - Math.abs(b - i) || a - b);
    others.slice(0, k).forEach((j, h) => {
      indices[i * k + h] = j;
      distances[i * k + h] = Math.abs(j - i);
    });
  }
  return { count, k, indices, distances };
}

describe('fuzzyGraph', () => {
  it('gives each pair one weight in both directions, the nearest neighbour a full member, and no self edge', () => {
    const { heads, tails, weights } = fuzzyGraph(line(20, 4));
    const weightOf = new Map<string, number>();
    heads.forEach((head, e) => weightOf.set(`${head}:${tails[e]}`, weights[e]));
    expect(weightOf.size).toBe(heads.length);
    for (const [key, weight] of weightOf) {
      const [head, tail] = key.split(':').map(Number);
      expect(head).not.toBe(tail);
      expect(weightOf.get(`${tail}:${head}`)).toBe(weight);
      expect(weight).toBeGreaterThan(0);
      expect(weight).toBeLessThanOrEqual(1);
    }
    expect(weightOf.get('5:6')).toBe(1);
  });

  it('leaves out rows without neighbours', () => {
    const rows = line(10, 3);
    rows.indices.fill(-1, 0, 3);
    const { heads, tails } = fuzzyGraph(rows);
    // Item 0 is still the neighbour of others, so it keeps edges (both ways), but only those.
    const ofZero = Array.from(heads).flatMap((head, e) => (head === 0 ? [tails[e]] : []));
    expect(ofZero.sort()).toEqual([1, 2]);
  });
});

describe('umapLayout', () => {
  const initial = (count: number) => {
    const random = seededRandom(5);
    return Float32Array.from({ length: count * 2 }, () => random() * 20 - 10);
  };

  it('is the same for the same input and seed, and finite', async () => {
    const rows = line(80, 6);
    const first = await umapLayout(rows, initial(80), { epochs: 50, seed: 3 });
    expect(Array.from(first).every(Number.isFinite)).toBe(true);
    expect(Array.from(await umapLayout(rows, initial(80), { epochs: 50, seed: 3 }))).toEqual(Array.from(first));
  });

  it('keeps neighbours on a line nearer than points far apart on it', async () => {
    const count = 120;
    const positions = await umapLayout(line(count, 8), initial(count), { epochs: 200, seed: 3 });
    const distance = (a: number, b: number) => Math.hypot(positions[a * 2] - positions[b * 2], positions[a * 2 + 1] - positions[b * 2 + 1]);
    let nearer = 0;
    for (let i = 0; i + 60 < count; i++) if (distance(i, i + 1) < distance(i, i + 60)) nearer++;
    expect(nearer / (count - 60)).toBeGreaterThan(0.95);
  });
});
