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

/** The share of each point's K nearest map points among its K nearest in the data. */
function kept(rows: NearestRows, positions: Float32Array): number {
  const onMap = mapNeighbours(positions, rows.count, K);
  let found = 0;
  for (let i = 0; i < rows.count; i++) {
    const nearest = new Set(rows.indices.subarray(i * K, (i + 1) * K));
    for (const j of onMap.subarray(i * K, (i + 1) * K)) if (nearest.has(j)) found++;
  }
  return found / rows.count / K;
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
});
