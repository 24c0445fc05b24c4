import type { Db } from '../db/connection';
import { membershipsAt } from '../db/repositories/clusters';
import { mapPointsOf, type MapPoint } from '../db/repositories/mapPoints';
import { placeMap } from '../lib/clustering/incrementalGraph';
import { storedClustersAround, type StoredClusters } from '../lib/clustering/keptClusters';
import { neighboursIn, undirectedEdgeCount } from '../lib/clustering/knnGraph';
import { unitVector } from '../lib/map/embedSample';
import { placedSample, placeItems, refineAddedItems, surroundingsOf } from '../lib/map/layoutMap';
import { shuffled } from '../lib/map/shuffled';
import { outlierZ, scoreNeighbours, type NeighbourScores, type NeighbourStats } from '../lib/quality/neighbourScores';
import type { VectorStore } from '../lib/vectors/vectorStore';
import type { KnnStep } from '../workflows/contracts';
import { updateAnalysis, type AnalysisDeps, type ClusteringSlice, type ScoredMedia } from './analysisResults';
import { tierDuplicatePairs } from './duplicateTiers';
import { clusteredStoredGraph, clusterLevelSlices, WRITE_SLICE, type StoredGraphAnalysis } from './graphClustering';
import type { Liveness } from './taskLiveness';
import { createProgressReporter } from './taskProgress';
import { storedVectors } from './vectorNeighbours';

/** What a re-clustering after an extension wrote: rows inserted or updated, clusters removed. */
export interface ReclusterCounts {
  clusters: number;
  /** Stored clusters kept with other members: their counts updated. */
  changedClusters: number;
  removedClusters: number;
  memberships: number;
  scores: number;
  mapPoints: number;
}

/**
 * After an extension of the stored graph (mergeNewNeighbours): clusters and scores it as clusterStoredGraph does,
 * but writes only what differs from the stored analysis (clusters no longer as stored, scores and issues that
 * changed) and places only the items the map lacks, from their neighbours on the map as it is
 * (docs/decisions.md "Re-clustering only what changed").
 */
export async function reclusterStoredGraph(
  deps: AnalysisDeps,
  live: Liveness,
  step: KnnStep,
): Promise<{ items: number; edges: number; rewritten: ReclusterCounts }> {
  const { db, vectors, store } = deps;
  const stored = await clusteredStoredGraph(db, live, step);
  const { version, items, ids, graph, levels } = stored;
  const report = createProgressReporter(db, step, 'analyze', 'Clustering', { from: 0.8, to: 1 });
  const changed = changedSinceAnalysis(stored);
  const places = placeMap(ids);
  const placeOfId = (id: string) => places.get(id) ?? -1;
  const rewritten: ReclusterCounts = { clusters: 0, changedClusters: 0, removedClusters: 0, memberships: 0, scores: 0, mapPoints: 0 };

  const removedClusters: string[] = [];
  const storedOfLevel: StoredClusters[] = [];
  for (const [threshold, labels] of levels.entries()) {
    const level = await storedClustersAround(labels, ids, placeOfId, changed, (of) => membershipsAt(db, version.id, threshold, of));
    level.storedIds.forEach((id, cluster) => level.kept[cluster] || removedClusters.push(id));
    storedOfLevel.push(level);
    live.heartbeat();
  }
  rewritten.removedClusters = removedClusters.length;
  function* clusterSlices(): Generator<ClusteringSlice> {
    for (const [threshold, labels] of levels.entries()) {
      for (const slice of clusterLevelSlices(threshold, labels, items, storedOfLevel[threshold])) {
        rewritten.clusters += slice.clusters.length;
        rewritten.changedClusters += slice.changed.length;
        rewritten.memberships += slice.members.length;
        yield slice;
      }
    }
  }
  function* changedScores(): Generator<ScoredMedia> {
    for (const slice of changedScoreSlices(stored, changed, version.neighbour_stats)) {
      rewritten.scores += slice.length;
      yield slice;
    }
  }

  // While a layout is due (its task may have read the items before these), it is due anew and places every item.
  const layoutDue = Boolean(version.map_due);
  const newMapPoints = layoutDue ? [] : await placeChangedItems(db, vectors, step.collection, stored, changed, placeOfId);
  rewritten.mapPoints = newMapPoints.length;
  live.heartbeat();

  const analysedGraph = { chunks: step.chunks, items: ids.length };
  const changes = { removedClusters, clustering: clusterSlices(), scores: changedScores(), reference: stored.reference, newMapPoints, layoutDue, analysedGraph };
  await updateAnalysis(db, version.id, changes, () => live.heartbeat());
  if (store) await tierDuplicatePairs({ db, store }, version.id, () => live.heartbeat());
  await report(1, 1, true);
  return { items: ids.length, edges: undirectedEdgeCount(graph), rewritten };
}

/** An issue as stored: its confidence as a real, its details with their keys in order. */
function issueKey(type: string, confidence: number, details: object | null | undefined): string {
  const sorted = details ? Object.entries(details).sort(([a], [b]) => a.localeCompare(b)) : [];
  return `${type}|${Math.fround(confidence)}|${JSON.stringify(sorted)}`;
}

/** An item's scores as stored: the uniqueness as a real, then its issues' keys in order. */
function scoreKey(score: NeighbourScores): string {
  const issues = score.issues.map((issue) => issueKey(issue.type, issue.confidence, issue.details)).sort();
  return [`${Math.fround(score.uniqueness)}`, ...issues].join(';');
}

/**
 * 1 for each item that changed since the stored analysis was made (new, or its list replaced by a later chunk); every
 * item when the graph does not record which part was analysed.
 */
function changedSinceAnalysis({ manifest, placeOf, graph }: StoredGraphAnalysis): Uint8Array {
  const changed = new Uint8Array(graph.count);
  const analysed = manifest?.analysed;
  if (!analysed) return changed.fill(1);
  for (let i = 0; i < graph.count; i++) if (graph.listChunk[i] >= analysed.chunks) changed[i] = 1;
  for (let ordinal = analysed.items; ordinal < manifest.ids.length; ordinal++) changed[placeOf![ordinal]] = 1;
  return changed;
}

/**
 * The scores a re-clustering writes, a slice at a time: every changed item's, and an unchanged item's when its
 * outlier issue differs between the stored reference and the new one (the rest of its scores comes from its own list,
 * which did not change); every item's without a stored reference.
 */
function* changedScoreSlices(stored: StoredGraphAnalysis, changed: Uint8Array, storedReference: NeighbourStats | null): Generator<ScoredMedia> {
  const { ids, embedded, groupOf, itemOf, topK, reference } = stored;
  const scoresOf = (items: number[], against: NeighbourStats) => scoreNeighbours(items.map(itemOf), ids, { reference: against, groupOf });
  let rescored: number[] = [];
  for (let start = 0; start < embedded.length; start += WRITE_SLICE) {
    const outlying: number[] = [];
    for (let place = start; place < Math.min(embedded.length, start + WRITE_SLICE); place++) {
      const i = embedded[place];
      if (changed[i] || !storedReference) rescored.push(i);
      else if (outlierZ(topK[place], storedReference) !== undefined || outlierZ(topK[place], reference) !== undefined) outlying.push(i);
    }
    if (storedReference && outlying.length > 0) {
      const before = scoresOf(outlying, storedReference).map(scoreKey);
      const after = scoresOf(outlying, reference).map(scoreKey);
      outlying.forEach((i, b) => before[b] !== after[b] && rescored.push(i));
    }
    if (rescored.length >= WRITE_SLICE || (start + WRITE_SLICE >= embedded.length && rescored.length > 0)) {
      const scores = scoresOf(rescored, reference);
      yield rescored.map((i, b) => ({ id: ids[i], score: scores[b] }));
      rescored = [];
    }
  }
}

/**
 * Places the changed embedded items the map lacks, on the map as it is (placeItems: from their neighbours' points,
 * else near the nearest of an even sample of the placed items), then moves them so their nearest on the map are their
 * kNN neighbours (refineAddedItems; every other point stays). Every other embedded item is on the map (the stored
 * analysis placed it), so only the points of the changed items' surroundings and of the sample are read.
 */
async function placeChangedItems(
  db: Db,
  vectors: VectorStore,
  collection: string,
  { version, ids, graph, embedded }: StoredGraphAnalysis,
  changed: Uint8Array,
  placeOfId: (id: string) => number,
): Promise<MapPoint[]> {
  const positions = new Float32Array(ids.length * 2);
  const placed = new Uint8Array(ids.length);
  const readPoints = async (items: Iterable<number>) => {
    for (const point of await mapPointsOf(db, version.id, Array.from(items, (i) => ids[i]))) {
      const place = placeOfId(point.mediaId);
      positions[place * 2] = point.x;
      positions[place * 2 + 1] = point.y;
      placed[place] = 1;
    }
  };
  const near = new Set<number>();
  for (const i of embedded) {
    if (!changed[i]) continue;
    near.add(i);
    for (const neighbour of neighboursIn(graph, i)) near.add(neighbour.index);
  }
  await readPoints(near);
  const unplaced = embedded.filter((i) => changed[i] && !placed[i]);
  const mapped = new Uint8Array(ids.length);
  for (const i of embedded) mapped[i] = 1;
  for (const i of unplaced) mapped[i] = 0;
  const sample = placedSample(embedded, mapped);
  const vectorsOf = (indexes: readonly number[]) => storedVectors(vectors, collection, indexes.map((i) => ids[i]));
  const sampleVectors = async () => {
    await readPoints(sample);
    return (await vectorsOf(sample)).map(unitVector);
  };
  const neighboursOf = (i: number) => neighboursIn(graph, i);
  await placeItems({ positions, placed, items: unplaced, neighboursOf, vectorsOf, sample, sampleVectors });
  const surroundings = surroundingsOf(unplaced, neighboursOf);
  await readPoints(surroundings.filter((i) => !placed[i]));
  await refineAddedItems({ positions, count: ids.length, added: unplaced, surroundings: surroundings.filter((i) => placed[i]), neighboursOf });
  return shuffled(unplaced, 11).map((i) => ({ mediaId: ids[i], x: positions[i * 2], y: positions[i * 2 + 1] }));
}
