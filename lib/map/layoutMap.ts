import { embedNearest, embedSample, fitToUnitSquare, LEAST_FOR_UMAP, unitDistance, unitVector, UMAP_NEIGHBOURS } from './embedSample';
import { nearestRows, placeFromNeighbours, PLACEMENT_JITTER, type Neighbour } from './placeFromNeighbours';
import { refineNeighbourhoods } from './refineNeighbourhoods';
import { seededRandom } from './seededRandom';
import type { NearestRows } from './umap';
import { vectorMatrix } from '../vectors/vectorMatrix';

/** Vectors UMAP lays out; every other item is placed from its neighbours, so the cost stays about linear. */
export const MAP_SAMPLE_SIZE = 5000;
const VECTOR_BATCH = 256;
/**
 * Rounds of refineNeighbourhoods over every point once the rest are placed, at most REFINE_POINT_ROUNDS / points so a
 * million points take 10 (docs/decisions.md "Map layout: a typed UMAP").
 */
const REFINE_ROUNDS = 60;
const REFINE_POINT_ROUNDS = 10_000_000;
/** The [-1, 1] map scaled to UMAP's units (its start spans [-10, 10]), where the refinement's forces are tuned. */
const REFINE_SCALE = 10;

export interface MapLayoutInput {
  /** Items are 0 … count-1. */
  count: number;
  /** The items with an embedding, in a stable order (media id): only they get a point. */
  embedded: readonly number[];
  /** Each item's kNN neighbours (the analysis's graph). */
  neighboursOf(item: number): readonly Neighbour[];
  /** The embedding vectors of `items`, in their order. */
  vectorsOf(items: readonly number[]): Promise<Float32Array[]>;
  sampleSize?: number;
}

/** Every `stride`-th of `items`: items come in media id order, which is random, so this is a fair sample that is the same each run. */
function evenSample(items: readonly number[], size: number): number[] {
  if (items.length <= size) return [...items];
  const stride = items.length / size;
  return Array.from({ length: size }, (_, i) => items[Math.floor(i * stride)]);
}

/**
 * The 2D map of the embedded items: a seeded UMAP of an even sample, every other item placed from its
 * placed kNN neighbours (the few no neighbour chain reaches beside their nearest sampled vector), then every point
 * moved so its nearest on the map are its kNN neighbours (refineNeighbourhoods). When the sample is every embedded
 * item, UMAP takes their kNN lists as they are and no vector is read.
 * Returns x, y per item (in [-1, 1]) and which items were placed (all embedded ones).
 */
export async function layoutMap(input: MapLayoutInput): Promise<{ positions: Float32Array; placed: Uint8Array }> {
  const positions = new Float32Array(input.count * 2);
  const placed = new Uint8Array(input.count);
  const { embedded } = input;
  const sample = evenSample(embedded, input.sampleSize ?? MAP_SAMPLE_SIZE);
  let sampleVectors: Promise<Float32Array[]> | undefined;
  const vectorsOfSample = () => (sampleVectors ??= input.vectorsOf(sample).then((vectors) => vectors.map(unitVector)));
  const umapOfAll = embedded.length >= LEAST_FOR_UMAP;
  const nearestOfAll = umapOfAll ? nearestAmong(input.count, embedded, input.neighboursOf) : undefined;
  const sampled = nearestOfAll && sample.length === embedded.length ? await embedNearest(nearestOfAll) : await embedSample(await vectorsOfSample());
  sample.forEach((item, i) => {
    positions[item * 2] = sampled[i * 2];
    positions[item * 2 + 1] = sampled[i * 2 + 1];
    placed[item] = 1;
  });
  await placeItems({ positions, placed, items: embedded, neighboursOf: input.neighboursOf, vectorsOf: input.vectorsOf, sample, sampleVectors: vectorsOfSample });
  if (nearestOfAll) {
    const points = Float32Array.from({ length: embedded.length * 2 }, (_, p) => positions[embedded[p >> 1] * 2 + (p & 1)] * REFINE_SCALE);
    const rounds = Math.min(REFINE_ROUNDS, Math.floor(REFINE_POINT_ROUNDS / embedded.length));
    fitToUnitSquare(await refineNeighbourhoods(points, nearestOfAll, rounds));
    embedded.forEach((item, p) => {
      positions[item * 2] = points[p * 2];
      positions[item * 2 + 1] = points[p * 2 + 1];
    });
  }
  return { positions, placed };
}

/** The kNN lists (UMAP_NEIGHBOURS nearest first) of `items` (of items 0 … count-1) as rows over their places in it; neighbours outside it are left out. */
function nearestAmong(count: number, items: readonly number[], neighboursOf: MapLayoutInput['neighboursOf']): NearestRows {
  const k = UMAP_NEIGHBOURS;
  const placeOf = new Int32Array(count).fill(-1);
  items.forEach((item, place) => (placeOf[item] = place));
  const indices = new Int32Array(items.length * k).fill(-1);
  const distances = new Float32Array(items.length * k);
  items.forEach((item, place) => {
    let kept = 0;
    for (const { index, similarity } of neighboursOf(item)) {
      const other = placeOf[index];
      if (other === -1 || other === place || kept === k) continue;
      indices[place * k + kept] = other;
      distances[place * k + kept++] = unitDistance(similarity);
    }
  });
  return { count: items.length, k, indices, distances };
}

/**
 * Places the unplaced of `items` from their placed kNN neighbours; the few no neighbour chain reaches (a small group
 * of near-copies, say) go a batch at a time beside their nearest `sample` item (placed items, whose unit vectors
 * `sampleVectors` gives, asked only when needed), then the rest of their groups follow from them. Updates in place.
 */
export async function placeItems(input: {
  positions: Float32Array;
  placed: Uint8Array;
  items: readonly number[];
  neighboursOf: MapLayoutInput['neighboursOf'];
  vectorsOf: MapLayoutInput['vectorsOf'];
  sample: readonly number[];
  sampleVectors: () => Promise<Float32Array[]>;
}): Promise<void> {
  const { positions, placed, sample } = input;
  const jitter = seededRandom(7);
  let unreached = placeFromNeighbours(positions, placed, input.neighboursOf, input.items);
  const sampleVectors = unreached.length > 0 && sample.length > 0 ? await input.sampleVectors() : [];
  const dim = sampleVectors[0]?.length ?? 0;
  const sampleMatrix = vectorMatrix(sampleVectors, dim);
  while (unreached.length > 0 && sampleVectors.length > 0) {
    const batch = unreached.slice(0, VECTOR_BATCH);
    const vectors = await input.vectorsOf(batch);
    nearestRows(vectors.map(unitVector), sampleMatrix, dim).forEach((row, b) => {
      const nearest = sample[row];
      positions[batch[b] * 2] = positions[nearest * 2] + (jitter() - 0.5) * 2 * PLACEMENT_JITTER;
      positions[batch[b] * 2 + 1] = positions[nearest * 2 + 1] + (jitter() - 0.5) * 2 * PLACEMENT_JITTER;
      placed[batch[b]] = 1;
    });
    unreached = placeFromNeighbours(positions, placed, input.neighboursOf, unreached.slice(VECTOR_BATCH));
  }
}

/** `items`, their kNN neighbours and their neighbours' neighbours: where the points near new ones on the map mostly are. */
export function surroundingsOf(items: readonly number[], neighboursOf: MapLayoutInput['neighboursOf']): number[] {
  const near = new Set(items);
  for (let hop = 0, from = [...items]; hop < 2; hop++) {
    const next: number[] = [];
    for (const item of from) {
      for (const { index } of neighboursOf(item)) {
        if (near.has(index)) continue;
        near.add(index);
        next.push(index);
      }
    }
    from = next;
  }
  return [...near];
}

/**
 * Moves the `added` items (placed by placeItems) as the layout's last step moves every point, so that their nearest
 * on the map are their kNN neighbours, while every other point stays where it is (a client's map keeps its points).
 * The forces work among `surroundings` (surroundingsOf the added items), whose points `positions` holds.
 */
export async function refineAddedItems(input: {
  positions: Float32Array;
  count: number;
  added: readonly number[];
  surroundings: readonly number[];
  neighboursOf: MapLayoutInput['neighboursOf'];
}): Promise<void> {
  const { positions, surroundings } = input;
  const added = new Set(input.added);
  const movable = Uint8Array.from(surroundings, (item) => (added.has(item) ? 1 : 0));
  const points = Float32Array.from({ length: surroundings.length * 2 }, (_, p) => positions[surroundings[p >> 1] * 2 + (p & 1)] * REFINE_SCALE);
  // A round's work is the added points' (the others stay in a tree made once).
  const rounds = Math.min(REFINE_ROUNDS, Math.floor(REFINE_POINT_ROUNDS / Math.max(1, added.size)));
  await refineNeighbourhoods(points, nearestAmong(input.count, surroundings, input.neighboursOf), rounds, movable);
  surroundings.forEach((item, p) => {
    if (!movable[p]) return;
    positions[item * 2] = points[p * 2] / REFINE_SCALE;
    positions[item * 2 + 1] = points[p * 2 + 1] / REFINE_SCALE;
  });
}

/** An even sample of the placed `items` (their map's stand-ins when new items reach none by neighbours). */
export function placedSample(items: readonly number[], placed: Uint8Array, size = MAP_SAMPLE_SIZE): number[] {
  return evenSample(items.filter((item) => placed[item]), size);
}
