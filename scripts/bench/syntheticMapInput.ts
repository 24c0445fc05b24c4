import { exactSearch, MetricKind, type BatchMatches } from 'usearch';
import { emptyKnnGraph, GRAPH_K, neighboursIn } from '../../lib/clustering/knnGraph';
import type { MapLayoutInput } from '../../lib/map/layoutMap';
import { seededRandom } from '../../lib/map/seededRandom';
import { vectorMatrix } from '../../lib/vectors/vectorMatrix';

/** The image model's embedding size. */
export const MODEL_DIM = 1280;
/** Points per base vector: each base's points are noisy copies of it. */
const COPIES_PER_BASE = 500;
const TOPICS = 40;
/** Of an item's GRAPH_K neighbours, this many are points of a neighbouring base; the rest copies of its own. */
const CROSS_NEIGHBOURS = 3;

/** A fixed permutation-like hash of an item (media ids are random, so an item's base must not follow its index). */
const hash = (i: number) => {
  let t = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b);
  t ^= t >>> 13;
  t = Math.imul(t, 0xc2b2ae35);
  return (t ^ (t >>> 16)) >>> 0;
};

function unit(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  for (let d = 0; d < vector.length; d++) vector[d] /= norm;
  return vector;
}

/**
 * `count` items of the model's dimension for timing the map layout at sizes no bench can embed or search exactly:
 * count / COPIES_PER_BASE base vectors (around TOPICS topics), each item a noisy copy of one base (chosen by a hash
 * of its index), its vector made on demand (nothing of count × 1,280 is held). Its kNN graph is built as the
 * analysis stores one (a KnnGraph, GRAPH_K a list) from that structure instead of a search: the nearest copies of
 * its own base, then CROSS_NEIGHBOURS points of the bases nearest its own (found by an exact search over the bases).
 */
export function syntheticMapInput(count: number): MapLayoutInput {
  const random = seededRandom(17);
  const bases = Math.max(2, Math.round(count / COPIES_PER_BASE));
  const topics = Array.from({ length: TOPICS }, () => unit(Float32Array.from({ length: MODEL_DIM }, () => random() - 0.5)));
  const baseVectors = Array.from({ length: bases }, (_, b) => unit(topics[b % TOPICS].map((value) => value + (random() - 0.5) * 0.03)));
  const baseOf = Int32Array.from({ length: count }, (_, i) => hash(i) % bases);
  // Each base's items (counting sort) and each item's place among them.
  const starts = new Int32Array(bases + 1);
  for (const base of baseOf) starts[base + 1]++;
  for (let b = 0; b < bases; b++) starts[b + 1] += starts[b];
  const members = new Int32Array(count);
  const placeIn = new Int32Array(count);
  const filled = starts.slice(0, bases);
  baseOf.forEach((base, i) => {
    placeIn[i] = filled[base] - starts[base];
    members[filled[base]++] = i;
  });
  const nearestBases = exactSearch(vectorMatrix(baseVectors, MODEL_DIM), vectorMatrix(baseVectors, MODEL_DIM), MODEL_DIM, CROSS_NEIGHBOURS + 1, MetricKind.Cos) as BatchMatches;

  const graph = emptyKnnGraph(count, GRAPH_K + 1);
  for (let i = 0; i < count; i++) {
    const base = baseOf[i];
    const size = starts[base + 1] - starts[base];
    let slot = i * graph.width;
    const add = (index: number, similarity: number) => {
      if (index === i) return;
      graph.neighbour[slot] = index;
      graph.similarity[slot++] = similarity;
      graph.degree[i]++;
    };
    // Copies nearer in the base's list are nearer: a chain, so a base is one connected cloud.
    for (let step = 1; graph.degree[i] < GRAPH_K - CROSS_NEIGHBOURS && step < size; step++) {
      const offset = step % 2 === 1 ? (step + 1) / 2 : -step / 2;
      add(members[starts[base] + ((placeIn[i] + offset + size) % size)], 0.95 - 0.005 * step);
    }
    for (let h = 0; h < nearestBases.k; h++) {
      const other = Number(nearestBases.keys[base * nearestBases.k + h]);
      if (other === base || graph.degree[i] >= GRAPH_K) continue;
      const otherSize = starts[other + 1] - starts[other];
      add(members[starts[other] + (placeIn[i] % otherSize)], 0.9 * (1 - nearestBases.distances[base * nearestBases.k + h]));
    }
  }
  const vectorOf = (i: number) => {
    const noise = seededRandom(i + 1);
    return unit(baseVectors[baseOf[i]].map((value) => value + (noise() - 0.5) * 0.01));
  };
  return {
    count,
    embedded: Array.from({ length: count }, (_, i) => i),
    neighboursOf: (i) => neighboursIn(graph, i),
    vectorsOf: async (items) => items.map(vectorOf),
  };
}
