/** Points a k-d tree leaf holds at most. */
const LEAF_SIZE = 8;

/**
 * A k-d tree over some of the points of `positions` (x0, y0, x1, y1, …): median splits along the wider side. Node n
 * (1 the root, 2n and 2n + 1 its halves) splits its points order[lo … hi) at mid = (lo + hi) >> 1 along axis
 * axisOf[n]: those before mid lie at or below splitAt[n], those from mid at or above it.
 */
interface MapTree {
  positions: Float32Array;
  order: Int32Array;
  axisOf: Uint8Array;
  splitAt: Float64Array;
  /** A search's nodes still to visit, with their ranges and how far the query lies beyond the split that led there. */
  stack: { node: Int32Array; lo: Int32Array; hi: Int32Array; gap: Float64Array };
}

/** The k-d tree over the points `items` (every point of `positions` when left out). */
export function mapTree(positions: Float32Array, items?: ArrayLike<number>): MapTree {
  const order = items ? Int32Array.from(items) : Int32Array.from({ length: positions.length >> 1 }, (_, i) => i);
  const nodes = 4 * Math.ceil(order.length / LEAF_SIZE) + 4;
  const axisOf = new Uint8Array(nodes);
  const splitAt = new Float64Array(nodes);
  const build = (node: number, lo: number, hi: number) => {
    if (hi - lo <= LEAF_SIZE) return;
    let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
    for (let p = lo; p < hi; p++) {
      const [x, y] = [positions[order[p] * 2], positions[order[p] * 2 + 1]];
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
    const axis = maxX - minX >= maxY - minY ? 0 : 1;
    const mid = (lo + hi) >> 1;
    selectNth(positions, order, axis, lo, hi - 1, mid);
    axisOf[node] = axis;
    splitAt[node] = positions[order[mid] * 2 + axis];
    build(node * 2, lo, mid);
    build(node * 2 + 1, mid, hi);
  };
  build(1, 0, order.length);
  const depth = 2 * Math.ceil(Math.log2(nodes)) + 4;
  const stack = { node: new Int32Array(depth), lo: new Int32Array(depth), hi: new Int32Array(depth), gap: new Float64Array(depth) };
  return { positions, order, axisOf, splitAt, stack };
}

/**
 * The nearest points on the map to point `i` among the points of `trees` (it left out), as a sorted list of at most k
 * kept across the trees: `best` and `bestDistance` (squared) hold the first `held` of them. Each tree is searched
 * nearer half first, skipping any half no nearer point can lie in. Returns the new `held`.
 */
function searchTree(tree: MapTree, i: number, k: number, best: Int32Array, bestDistance: Float64Array, held: number): number {
  const { positions, order, axisOf, splitAt } = tree;
  const { node: stackNode, lo: stackLo, hi: stackHi, gap: stackGap } = tree.stack;
  const count = order.length;
  if (count === 0) return held;
  const x = positions[i * 2];
  const y = positions[i * 2 + 1];
  [stackNode[0], stackLo[0], stackHi[0], stackGap[0]] = [1, 0, count, 0];
  let top = 1;
  while (top > 0) {
    top--;
    const [node, lo, hi] = [stackNode[top], stackLo[top], stackHi[top]];
    if (held === k && stackGap[top] >= bestDistance[k - 1]) continue;
    if (hi - lo > LEAF_SIZE) {
      const mid = (lo + hi) >> 1;
      const gap = (axisOf[node] === 0 ? x : y) - splitAt[node];
      // The farther half first onto the stack, so the nearer is searched first.
      [stackNode[top], stackLo[top], stackHi[top], stackGap[top]] = gap < 0 ? [node * 2 + 1, mid, hi, gap * gap] : [node * 2, lo, mid, gap * gap];
      [stackNode[top + 1], stackLo[top + 1], stackHi[top + 1], stackGap[top + 1]] = gap < 0 ? [node * 2, lo, mid, 0] : [node * 2 + 1, mid, hi, 0];
      top += 2;
      continue;
    }
    for (let p = lo; p < hi; p++) {
      const j = order[p];
      if (j === i) continue;
      const dx = positions[j * 2] - x;
      const dy = positions[j * 2 + 1] - y;
      const distance = dx * dx + dy * dy;
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
  }
  return held;
}

/**
 * Each of `count` points' `k` nearest other points on the map (x0, y0, x1, y1, … in `positions`), nearest first,
 * row-major (-1 where fewer than k others exist), among the points of `trees` (mapTree; by default one over every
 * point). A grid was slower by far where near-copies stack hundreds of points in one cell. With `queries`, only their
 * rows are searched (the rest stay -1).
 */
export function mapNeighbours(positions: Float32Array, count: number, k: number, queries?: ArrayLike<number>, trees?: readonly MapTree[]): Int32Array {
  const found = new Int32Array(count * k).fill(-1);
  if (count < 2 || k === 0) return found;
  const searched = trees ?? [mapTree(positions.subarray(0, count * 2))];
  const best = new Int32Array(k);
  const bestDistance = new Float64Array(k);
  for (let q = 0; q < (queries?.length ?? count); q++) {
    const i = queries ? queries[q] : q;
    let held = 0;
    for (const tree of searched) held = searchTree(tree, i, k, best, bestDistance, held);
    found.set(best.subarray(0, held), i * k);
  }
  return found;
}

/** Reorders order[lo … hi] (inclusive) so that order[nth] has the nth smallest coordinate `axis`, smaller ones before it and larger after (Hoare's select). */
function selectNth(positions: Float32Array, order: Int32Array, axis: number, lo: number, hi: number, nth: number): void {
  const at = (p: number) => positions[order[p] * 2 + axis];
  while (lo < hi) {
    const pivot = at((lo + hi) >> 1);
    let [i, j] = [lo, hi];
    while (i <= j) {
      while (at(i) < pivot) i++;
      while (at(j) > pivot) j--;
      if (i <= j) {
        [order[i], order[j]] = [order[j], order[i]];
        i++;
        j--;
      }
    }
    if (nth <= j) hi = j;
    else if (nth >= i) lo = i;
    else return;
  }
}
