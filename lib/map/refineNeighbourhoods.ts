import { setImmediate as nextTurn } from 'node:timers/promises';
import { mapNeighbours, mapTree } from './mapNeighbours';
import { clip, fuzzyGraph, TURN_MS, type NearestRows } from './umap';

/** Map neighbours looked at per point in a round: the ones among them that are not its kNN neighbours are pushed off. */
const MAP_NEIGHBOURS = 20;
/** How hard an intruder is pushed, against UMAP's repulsion (1). */
const INTRUDER_PUSH = 0.2;
const LEARNING_RATE = 0.3;
const EPOCHS_PER_ROUND = 2;

/**
 * Sharpens a UMAP layout (`positions`, UMAP's units) in place so that each point's nearest points on the map are its
 * kNN neighbours: `rounds` rounds, each finding every point's nearest on the map (mapNeighbours) and then, for
 * EPOCHS_PER_ROUND epochs, pulling each point towards its fuzzy-graph neighbours and pushing it from those of its map
 * neighbours that are not (UMAP's attraction and repulsion, aimed where it matters rather than at random points, with
 * the curve a = b = 1, t-SNE's, which kept as many neighbours as UMAP's min_dist 0.1 for a third less time, no
 * Math.pow). Deterministic: no randomness. Epochs run in turns of at most TURN_MS. With `movable`, only the points it
 * marks move; the others pull and push them from where they are.
 */
export async function refineNeighbourhoods(positions: Float32Array, nearest: NearestRows, rounds: number, movable?: Uint8Array): Promise<Float32Array> {
  const { count } = nearest;
  const points = Int32Array.from({ length: count }, (_, i) => i);
  const moving = movable ? points.filter((i) => movable[i] === 1) : points;
  // Points that stay are put in a tree once; each round's tree holds only the moving ones.
  const staying = movable && mapTree(positions, points.filter((i) => movable[i] !== 1));
  const { heads, tails, weights } = fuzzyGraph(nearest);
  // The graph's edges by head (CSR): point i's are others[starts[i]] … others[starts[i + 1] - 1].
  const starts = new Int32Array(count + 1);
  for (const head of heads) starts[head + 1]++;
  for (let i = 0; i < count; i++) starts[i + 1] += starts[i];
  const others = new Int32Array(heads.length);
  const strengths = new Float32Array(heads.length);
  const filled = starts.slice(0, count);
  heads.forEach((head, e) => {
    others[filled[head]] = tails[e];
    strengths[filled[head]++] = weights[e];
  });
  const epochs = rounds * EPOCHS_PER_ROUND;
  let epoch = 0;
  let turnStarted = Date.now();
  for (let round = 0; round < rounds; round++) {
    // Each point's map neighbours that are not its graph neighbours (-1 for those that are).
    const intruders = staying ? mapNeighbours(positions, count, MAP_NEIGHBOURS, moving, [staying, mapTree(positions, moving)]) : mapNeighbours(positions, count, MAP_NEIGHBOURS);
    for (let m = 0; m < moving.length; m++) {
      const i = moving[m];
      for (let h = i * MAP_NEIGHBOURS; h < (i + 1) * MAP_NEIGHBOURS; h++) {
        for (let edge = starts[i]; edge < starts[i + 1]; edge++) if (others[edge] === intruders[h]) intruders[h] = -1;
      }
    }
    for (let e = 0; e < EPOCHS_PER_ROUND; e++, epoch++) {
      const alpha = LEARNING_RATE * (1 - epoch / epochs);
      for (let m = 0; m < moving.length; m++) {
        const i = moving[m];
        const [x, y] = [i * 2, i * 2 + 1];
        for (let edge = starts[i]; edge < starts[i + 1]; edge++) {
          const j = others[edge] * 2;
          const dx = positions[x] - positions[j];
          const dy = positions[y] - positions[j + 1];
          const d2 = dx * dx + dy * dy;
          if (d2 <= 0) continue;
          const pull = (-2 / (1 + d2)) * strengths[edge];
          positions[x] += clip(pull * dx) * alpha;
          positions[y] += clip(pull * dy) * alpha;
        }
        for (let h = i * MAP_NEIGHBOURS; h < (i + 1) * MAP_NEIGHBOURS; h++) {
          const other = intruders[h];
          if (other === -1) continue;
          const dx = positions[x] - positions[other * 2];
          const dy = positions[y] - positions[other * 2 + 1];
          const d2 = dx * dx + dy * dy;
          const push = (2 / ((0.001 + d2) * (1 + d2))) * INTRUDER_PUSH;
          positions[x] += clip(push * dx) * alpha;
          positions[y] += clip(push * dy) * alpha;
        }
      }
      if (Date.now() - turnStarted >= TURN_MS) {
        await nextTurn();
        turnStarted = Date.now();
      }
    }
  }
  return positions;
}
