import { mapNeighbours, mapTree } from '../../lib/map/mapNeighbours';
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

  it('searches only the rows of the points asked for, among the points of the trees given', () => {
    const random = seededRandom(4);
    const positions = Float32Array.from({ length: 300 * 2 }, () => random());
    const all = mapNeighbours(positions, 300, 10);
    const queries = [0, 7, 299];
    const some = mapNeighbours(positions, 300, 10, queries);
    for (let i = 0; i < 300; i++) expect(Array.from(some.subarray(i * 10, (i + 1) * 10))).toEqual(queries.includes(i) ? Array.from(all.subarray(i * 10, (i + 1) * 10)) : new Array(10).fill(-1));
    // The points split over two trees: the same nearest.
    const split = [mapTree(positions, [...Array(300).keys()].filter((i) => i % 3 === 0)), mapTree(positions, [...Array(300).keys()].filter((i) => i % 3 !== 0))];
    expect(Array.from(mapNeighbours(positions, 300, 10, undefined, split))).toEqual(Array.from(all));
  });
});
