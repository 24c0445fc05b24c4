import { seededRandom } from '../map/seededRandom';
import { shuffled } from '../map/shuffled';
import { kMeansCentres, nearestCentres, selectItems, type Chosen, type SelectionPool, type SelectionStrategy } from './selectItems';

/**
 * What a SELECTION task asks (issue 52): a weighted mix of strategies, a budget, a seed and, optionally, the
 * budget balanced over groups (the user's classes, or clusters). Pure; scales to a million items by choosing
 * within parts of the pool (see docs/decisions.md).
 */
export interface SelectionRequest {
  /** Each strategy's share of the budget (positive weights; their sum need not be 1). */
  weights: Partial<Record<SelectionStrategy, number>>;
  count: number;
  seed: number;
  /** Each item's group when the budget is split evenly over groups (a class, a cluster); names for the reasons. */
  balance?: { groupOf: Int32Array; names: readonly string[] };
}

/** The order strategies take their shares in: the first named takes the first. */
export const STRATEGIES: readonly SelectionStrategy[] = ['typicality', 'representative', 'diversity', 'uniqueness', 'coverage'];

/** A pool at most this large (and budget × pool at most DIRECT_WORK) is chosen from at once; a larger one by parts. */
export const DIRECT_ITEMS = 20_000;
const DIRECT_WORK = 50_000_000;
/**
 * A large pool is chosen from by parts, each the items of one cell of repeated k-means splits, of about this many
 * picks each (and 100-1,000 items): the kNN searches inside the parts are what the time goes to.
 */
const PICKS_PER_PART = 2;
/** The dimensions a large pool is compared in (sketchVectors). */
export const SKETCH_DIM = 128;
/** Cells per k-means split of a large pool, and the sample its centres are found on. */
const BRANCHES = 32;
const SAMPLE_PER_BRANCH = 16;

/** `total` split in proportion to `weights` (largest remainders; ties to the earlier), each at most its cap. */
export function apportion(total: number, weights: readonly number[], caps?: readonly number[]): number[] {
  const shares = weights.map(() => 0);
  let left = total;
  let open = weights.map((weight, i) => (weight > 0 && (caps?.[i] ?? Infinity) > 0 ? i : -1)).filter((i) => i >= 0);
  while (left > 0 && open.length > 0) {
    const sum = open.reduce((acc, i) => acc + weights[i], 0);
    const exact = open.map((i) => (left * weights[i]) / sum);
    const whole = exact.map(Math.floor);
    let rest = left - whole.reduce((acc, value) => acc + value, 0);
    const byRemainder = open.map((_, j) => j).sort((a, b) => exact[b] - whole[b] - (exact[a] - whole[a]) || a - b);
    for (const j of byRemainder) if (rest-- > 0) whole[j]++;
    open.forEach((i, j) => {
      const room = (caps?.[i] ?? Infinity) - shares[i];
      const given = Math.min(room, whole[j]);
      shares[i] += given;
      left -= given;
    });
    open = open.filter((i) => shares[i] < (caps?.[i] ?? Infinity));
  }
  return shares;
}

function subPool(pool: SelectionPool, indices: ArrayLike<number>): SelectionPool {
  const at = new Map<number, number>();
  const list = Array.from(indices);
  list.forEach((index, i) => at.set(index, i));
  return {
    dim: pool.dim,
    vectors: list.map((index) => pool.vectors[index]),
    uniqueness: pool.uniqueness && list.map((index) => Number(pool.uniqueness![index])),
    labelled: pool.labelled?.flatMap((index) => (at.has(index) ? [at.get(index)!] : [])),
  };
}

/**
 * Unit vectors in SKETCH_DIM dimensions (a seeded feature hashing: each dimension added, with a random sign, into one
 * of the new ones): cosine similarities kept to about ±0.1 at a tenth of the work. Vectors that are short already are kept.
 */
export function sketchVectors(vectors: readonly Float32Array[], dim: number, seed: number): Float32Array[] {
  if (dim <= SKETCH_DIM) return [...vectors];
  const random = seededRandom(seed);
  const bucket = Int32Array.from({ length: dim }, () => Math.floor(random() * SKETCH_DIM));
  const sign = Float32Array.from({ length: dim }, () => (random() < 0.5 ? -1 : 1));
  // Each new dimension's sources in a row, so the inner loop sums into one number.
  const order = Int32Array.from({ length: dim }, (_, d) => d).sort((a, b) => bucket[a] - bucket[b] || a - b);
  const ends = Int32Array.from({ length: SKETCH_DIM }, (_, o) => order.findLastIndex((d) => bucket[d] <= o) + 1);
  const signs = Float32Array.from(order, (d) => sign[d]);
  return vectors.map((vector) => {
    const out = new Float32Array(SKETCH_DIM);
    let norm = 0;
    for (let o = 0, j = 0; o < SKETCH_DIM; o++) {
      let sum = 0;
      for (; j < ends[o]; j++) sum += signs[j] * vector[order[j]];
      out[o] = sum;
      norm += sum * sum;
    }
    norm = Math.sqrt(norm) || 1;
    for (let o = 0; o < SKETCH_DIM; o++) out[o] /= norm;
    return out;
  });
}

/** The pool's items in parts of at most `partItems`, each a cell of k-means splits (alike items together). */
function partsOf(pool: SelectionPool, indices: Int32Array, partItems: number, seed: number): Int32Array[] {
  if (indices.length <= partItems) return [indices];
  const k = Math.min(BRANCHES, Math.ceil(indices.length / partItems));
  const sample = shuffled(Array.from(indices), seed).slice(0, k * SAMPLE_PER_BRANCH);
  const centres = kMeansCentres(subPool(pool, sample), k, seed, 3);
  const cellOf = nearestCentres(centres, Array.from(indices, (index) => pool.vectors[index]), pool.dim);
  const cells = centres.map(() => [] as number[]);
  indices.forEach((index, i) => cells[cellOf[i]].push(index));
  const nonEmpty = cells.filter((cell) => cell.length > 0);
  // Items k-means cannot tell apart (copies of one vector) are cut in order instead.
  const split =
    nonEmpty.length > 1 ? nonEmpty : Array.from({ length: k }, (_, c) => Array.from(indices.subarray(Math.floor((c * indices.length) / k), Math.floor(((c + 1) * indices.length) / k))));
  return split.flatMap((cell) => partsOf(pool, Int32Array.from(cell), partItems, seed + 1));
}

/**
 * selectItems on any size of pool: at once when small, else in proportion from each part, their picks interleaved by rank.
 */
export async function selectAtScale(pool: SelectionPool, strategy: SelectionStrategy, count: number, seed: number): Promise<Chosen[]> {
  const n = pool.vectors.length;
  const wanted = Math.min(count, n);
  if ((n <= DIRECT_ITEMS && n * wanted <= DIRECT_WORK) || (strategy === 'uniqueness' && pool.uniqueness)) return selectItems(pool, strategy, wanted, seed);
  const partItems = Math.min(1_000, Math.max(100, Math.ceil((PICKS_PER_PART * n) / wanted)));
  return byParts(pool, strategy, wanted, partsOf(pool, Int32Array.from({ length: n }, (_, i) => i), partItems, seed), seed);
}

/** Lets timers run (an activity's heartbeat) between parts of a long choice. */
const breathe = () => new Promise((resolve) => setImmediate(resolve));

async function byParts(pool: SelectionPool, strategy: SelectionStrategy, wanted: number, parts: Int32Array[], seed: number): Promise<Chosen[]> {
  const shares = apportion(wanted, parts.map((part) => part.length), parts.map((part) => part.length));
  const picks: Chosen[][] = [];
  for (const [p, part] of parts.entries()) {
    picks.push(shares[p] === 0 ? [] : selectItems(subPool(pool, part), strategy, shares[p], seed).map((pick) => ({ ...pick, index: part[pick.index] })));
    if (p % 100 === 99) await breathe();
  }
  const interleaved: Chosen[] = [];
  for (let rank = 0; interleaved.length < wanted && picks.some((list) => rank < list.length); rank++) {
    for (const list of picks) if (rank < list.length) interleaved.push(list[rank]);
  }
  return interleaved.slice(0, wanted);
}

/** The mix on one pool: each strategy its share (in STRATEGIES order), an item once; a shortfall is filled by coverage of the rest. */
async function mixed(pool: SelectionPool, weights: SelectionRequest['weights'], count: number, seed: number): Promise<Chosen[]> {
  const named = STRATEGIES.filter((strategy) => (weights[strategy] ?? 0) > 0);
  const shares = apportion(Math.min(count, pool.vectors.length), named.map((strategy) => weights[strategy]!));
  const taken = new Set<number>();
  const chosen: Chosen[] = [];
  const takeFrom = async (strategy: SelectionStrategy, share: number, from: SelectionPool) => {
    let added = 0;
    for (const pick of await selectAtScale(from, strategy, share + taken.size, seed)) {
      if (added === share) break;
      if (taken.has(pick.index)) continue;
      taken.add(pick.index);
      chosen.push({ ...pick, reason: `${strategy}: ${pick.reason}` });
      added++;
    }
  };
  for (const [i, strategy] of named.entries()) await takeFrom(strategy, shares[i], pool);
  const short = Math.min(count, pool.vectors.length) - chosen.length;
  if (short > 0) await takeFrom('coverage', short, { ...pool, labelled: [...(pool.labelled ?? []), ...taken] });
  return chosen;
}

/** Chooses `request.count` items of the pool (fewer when it holds fewer); the same pool and request give the same items. */
export async function chooseItems(given: SelectionPool, request: SelectionRequest): Promise<Chosen[]> {
  const pool = given.vectors.length > DIRECT_ITEMS && given.dim > SKETCH_DIM ? { ...given, vectors: sketchVectors(given.vectors, given.dim, request.seed), dim: SKETCH_DIM } : given;
  if (!request.balance) return mixed(pool, request.weights, request.count, request.seed);
  const { groupOf, names } = request.balance;
  const members = names.map(() => [] as number[]);
  groupOf.forEach((group, index) => members[group].push(index));
  const shares = apportion(request.count, names.map(() => 1), members.map((list) => list.length));
  const chosen: Chosen[] = [];
  for (const [group, list] of members.entries()) {
    if (shares[group] === 0) continue;
    for (const pick of await mixed(subPool(pool, list), request.weights, shares[group], request.seed)) {
      chosen.push({ ...pick, index: list[pick.index], reason: `${pick.reason} (${shares[group]} of ${list.length} in “${names[group]}”)` });
    }
  }
  return chosen;
}
