import { layoutBounds } from './layoutBounds';

/**
 * Each of `count` points' `k` nearest other points on the map (x0, y0, x1, y1, … in `positions`), nearest first,
 * row-major (-1 where fewer than k others exist): a uniform grid of about two points a cell, searched ring by ring
 * outwards until no nearer point can remain, so the cost stays about linear in the points.
 */
export function mapNeighbours(positions: Float32Array, count: number, k: number): Int32Array {
  const found = new Int32Array(count * k).fill(-1);
  if (count < 2 || k === 0) return found;
  const { minX, maxX, minY, maxY } = layoutBounds(positions, count);
  const side = Math.max(1, Math.ceil(Math.sqrt(count / 2)));
  const cellSize = Math.max(maxX - minX, maxY - minY, 1e-9) / side;
  const cellOf = (value: number, min: number) => Math.min(side - 1, Math.floor((value - min) / cellSize));
  // Points by cell (counting sort): cell c holds items[starts[c]] … items[starts[c + 1] - 1].
  const cells = new Int32Array(count);
  const starts = new Int32Array(side * side + 1);
  for (let i = 0; i < count; i++) {
    cells[i] = cellOf(positions[i * 2 + 1], minY) * side + cellOf(positions[i * 2], minX);
    starts[cells[i] + 1]++;
  }
  for (let c = 0; c < side * side; c++) starts[c + 1] += starts[c];
  const items = new Int32Array(count);
  const filled = starts.slice(0, side * side);
  for (let i = 0; i < count; i++) items[filled[cells[i]]++] = i;

  const best = new Int32Array(k);
  const bestDistance = new Float64Array(k);
  for (let i = 0; i < count; i++) {
    const [x, y] = [positions[i * 2], positions[i * 2 + 1]];
    const [cx, cy] = [cells[i] % side, Math.floor(cells[i] / side)];
    let held = 0;
    const consider = (cell: number) => {
      for (let p = starts[cell]; p < starts[cell + 1]; p++) {
        const j = items[p];
        if (j === i) continue;
        const distance = (positions[j * 2] - x) ** 2 + (positions[j * 2 + 1] - y) ** 2;
        if (held === k && distance >= bestDistance[k - 1]) continue;
        // Insertion into the sorted list of the nearest so far.
        let at = held < k ? held++ : k - 1;
        while (at > 0 && bestDistance[at - 1] > distance) {
          best[at] = best[at - 1];
          bestDistance[at] = bestDistance[at - 1];
          at--;
        }
        best[at] = j;
        bestDistance[at] = distance;
      }
    };
    for (let ring = 0; ring < side; ring++) {
      for (let gy = cy - ring; gy <= cy + ring; gy++) {
        if (gy < 0 || gy >= side) continue;
        const edge = gy === cy - ring || gy === cy + ring;
        for (let gx = cx - ring; gx <= cx + ring; gx += edge ? 1 : 2 * ring) {
          if (gx >= 0 && gx < side) consider(gy * side + gx);
        }
      }
      // Every point beyond this ring is at least `ring` cells away.
      if (held === k && bestDistance[k - 1] <= (ring * cellSize) ** 2) break;
    }
    found.set(best.subarray(0, held), i * k);
  }
  return found;
}
