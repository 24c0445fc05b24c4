import { mapNeighbours } from '../../lib/map/mapNeighbours';
import { refineNeighbourhoods } from '../../lib/map/refineNeighbourhoods';
import { seededRandom } from '../../lib/map/seededRandom';
import { umapLayout, type NearestRows } from '../../lib/map/umap';

const COUNT = 400;
const DIM = 8;
const K = 10;

/** COUNT random points in DIM dimensions (a space no 2D map keeps every neighbour of): each one's K nearest others. */
function randomCloud(): NearestRows {
  const random = seededRandom(9);
  const points = Array.from({ length: COUNT }, () => Array.from({ length: DIM }, () => random()));
  const indices = new Int32Array(COUNT * K);
  const distances = new Float32Array(COUNT * K);
  points.forEach((point, i) => {
    const others = points
      .map((other, j) => ({ j, distance: Math.hypot(...other.map((value, d) => value - point[d])) }))
      .filter(({ j }) => j !== i)
      .sort((a, b) => a.distance - b.distance)
      .slice(0, K);
    others.forEach(({ j, distance }, h) => {
      indices[i * K + h] = j;
      distances[i * K + h] = distance;
    });
  });
  return { count: COUNT, k: K, indices, distances };
}

/** The share of each point's (or each of `items`') K nearest map points among its K nearest in the data. */
function kept(rows: NearestRows, positions: Float32Array, items: readonly number[] = [...Array(rows.count).keys()]): number {
  const onMap = mapNeighbours(positions, rows.count, K);
  let found = 0;
  for (const i of items) {
    const nearest = new Set(rows.indices.subarray(i * K, (i + 1) * K));
    for (const j of onMap.subarray(i * K, (i + 1) * K)) if (nearest.has(j)) found++;
  }
  return found / items.length / K;
}

describe('refineNeighbourhoods', () => {
  it("keeps more of each point's nearest than UMAP alone, the same each time", async () => {
    const rows = randomCloud();
    const random = seededRandom(5);
    const umap = await umapLayout(rows, Float32Array.from({ length: COUNT * 2 }, () => random() * 20 - 10), { epochs: 200, seed: 3 });
    const refined = await refineNeighbourhoods(Float32Array.from(umap), rows, 30);
    expect(Array.from(refined).every(Number.isFinite)).toBe(true);
    expect(kept(rows, refined)).toBeGreaterThan(kept(rows, umap) + 0.03);
    expect(Array.from(await refineNeighbourhoods(Float32Array.from(umap), rows, 30))).toEqual(Array.from(refined));
  });

  it('moves only the movable points (added to a map), bringing their nearest on the map closer to their nearest in the data', async () => {
    const rows = randomCloud();
    const random = seededRandom(5);
    const map = await refineNeighbourhoods(await umapLayout(rows, Float32Array.from({ length: COUNT * 2 }, () => random() * 20 - 10), { epochs: 200, seed: 3 }), rows, 30);
    // Every 10th point added to the map afterwards, placed at the centre of its neighbours already there.
    const added = [...Array(COUNT).keys()].filter((i) => i % 10 === 0);
    const movable = Uint8Array.from({ length: COUNT }, (_, i) => (i % 10 === 0 ? 1 : 0));
    for (const i of added) {
      const there = Array.from(rows.indices.subarray(i * K, (i + 1) * K)).filter((j) => !movable[j]);
      for (const axis of [0, 1]) map[i * 2 + axis] = there.reduce((sum, j) => sum + map[j * 2 + axis], 0) / there.length;
    }
    const refined = await refineNeighbourhoods(Float32Array.from(map), rows, 30, movable);
    for (let i = 0; i < COUNT; i++) if (!movable[i]) expect([refined[i * 2], refined[i * 2 + 1]]).toEqual([map[i * 2], map[i * 2 + 1]]);
    expect(kept(rows, refined, added)).toBeGreaterThan(kept(rows, map, added) + 0.15);
  });
});
