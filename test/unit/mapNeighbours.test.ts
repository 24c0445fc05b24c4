import { mapNeighbours } from '../../lib/map/mapNeighbours';
import { seededRandom } from '../../lib/map/seededRandom';

describe('mapNeighbours', () => {
  it("finds each point's k nearest others on the map, nearest first, as a scan of every point does", () => {
    const random = seededRandom(3);
    for (const count of [1, 2, 5, 700]) {
      // Two dense clumps and a sparse spread, so grid cells hold very different numbers of points.
      const positions = Float32Array.from({ length: count * 2 }, (_, v) => (v % 7 === 0 ? 5 : 0) + random() * (v % 3 === 0 ? 0.01 : 1));
      const k = 10;
      const found = mapNeighbours(positions, count, k);
      const distance = (i: number, j: number) => (positions[i * 2] - positions[j * 2]) ** 2 + (positions[i * 2 + 1] - positions[j * 2 + 1]) ** 2;
      for (let i = 0; i < count; i++) {
        const scanned = Array.from({ length: count }, (_, j) => j).filter((j) => j !== i).sort((a, b) => distance(i, a) - distance(i, b)).slice(0, k);
        const row = Array.from(found.subarray(i * k, (i + 1) * k));
        expect(row.slice(scanned.length)).toEqual(new Array(k - scanned.length).fill(-1));
        expect(row.slice(0, scanned.length).map((j) => distance(i, j))).toEqual(scanned.map((j) => distance(i, j)));
      }
    }
  });
});
