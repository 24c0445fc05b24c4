import { randomUUID } from 'node:crypto';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { membershipsAt, type NewCluster } from '../db/repositories/clusters';
import { clearKnnEdges, findKnnGraphManifest, forEachKnnChunk, storedKnnChunks, writeKnnChunk } from '../db/repositories/knnEdges';
import { mapPointsOf, type MapPoint } from '../db/repositories/mapPoints';
import { indexItemColumns, indexItemCount, type IndexItemColumns } from '../db/repositories/media';
import { findVersion, headVersion } from '../db/repositories/versions';
import { CLUSTER_SIMILARITY_CUTOFFS } from '../lib/clustering/clusterByThresholds';
import { ordinalOf, placeMap, placesIn } from '../lib/clustering/incrementalGraph';
import { componentCounts } from '../lib/clustering/componentCounts';
import { addKnnHits, emptyKnnGraph, encodeKnnHits, knnGraphLevels, meanTopKIn, neighboursIn, undirectedEdgeCount } from '../lib/clustering/knnGraph';
import { storedClustersAround, type StoredClusters } from '../lib/clustering/keptClusters';
import { unitVector } from '../lib/map/embedSample';
import { layoutMap, placedSample, placeItems } from '../lib/map/layoutMap';
import { shuffled } from '../lib/map/shuffled';
import { outlierZ, scoreNeighbours, statsOfMeanTopK, type NeighbourItem, type NeighbourScores, type NeighbourStats } from '../lib/quality/neighbourScores';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { tierDuplicatePairs } from '../services/duplicateTiers';
import type { ObjectStore } from '../lib/storage/objectStore';
import { mapPointSlices, replaceAnalysis, updateAnalysis, type ClusteringSlice, type ScoredMedia } from '../services/analysisResults';
import type { KnnChunkStep, KnnPlan, KnnStep } from '../workflows/contracts';
import { GRAPH_K } from './analysis';
import { createProgressReporter, type TaskRef } from '../services/taskProgress';
import { forEachNeighbourBatch, storedVectors } from '../services/vectorNeighbours';
import { activityLiveness, heartbeating } from './liveness';

/** Rows written (and items scored) at a time in the final step. */
const WRITE_SLICE = 5000;

/**
 * The analysis as fan-out (docs/decisions.md "Analysis as fan-out"): `planKnnChunks` splits the version's images
 * and frames into chunks, `searchKnnChunk` (any worker, any number at once) stores one chunk's kNN hits in
 * knn_edges, and `clusterStoredGraph` reads them into typed arrays, clusters at the five thresholds, scores, lays
 * out the map and replaces it all in one transaction (services/analysisResults). Same results as analyzeDataset, the single-activity path.
 */
/** `store` gives the duplicate pairs their tiers from thumbnails (services/duplicateTiers.ts); stage benches leave it out. */
export function createKnnGraphActivities(deps: { db: Db; vectors: VectorStore; store?: ObjectStore; chunks: { size: number; concurrency: number } }) {
  const { db, vectors, store } = deps;
  // Every chunk maps hits to ordinals through all the version's ids: loaded once per analysis and worker.
  let itemsOfAnalysis: { analysisId: string; items: Promise<IndexItemColumns> } | undefined;
  const itemIdsOf = (step: KnnChunkStep) => {
    if (itemsOfAnalysis?.analysisId !== step.analysisId) itemsOfAnalysis = { analysisId: step.analysisId, items: indexItemColumns(db, step.versionId) };
    const loading = itemsOfAnalysis.items;
    loading.catch(() => (itemsOfAnalysis = undefined));
    return loading;
  };

  return heartbeating({
    /** Chunks of the head version's images and frames (by ordinal), its stored graph forgotten. */
    async planKnnChunks(ref: TaskRef): Promise<KnnPlan> {
      const version = await headVersion(db, ref.datasetId);
      const count = await indexItemCount(db, version.id);
      await clearKnnEdges(db, version.id);
      const chunks = Array.from({ length: Math.ceil(count / deps.chunks.size) }, (_, ordinal) => ({
        ordinal,
        start: ordinal * deps.chunks.size,
        end: Math.min(count, (ordinal + 1) * deps.chunks.size),
      }));
      return { versionId: version.id, collection: imageCollection(version.vector_space_id), analysisId: randomUUID(), chunks, concurrency: deps.chunks.concurrency };
    },

    /** Searches the GRAPH_K + 1 nearest of a chunk's embedded items and stores the hits; a repeat overwrites. */
    async searchKnnChunk(step: KnnChunkStep): Promise<{ searched: number; hits: number }> {
      const { ids, embedded } = await itemIdsOf(step);
      const searching: number[] = [];
      for (let i = step.chunk.start; i < step.chunk.end; i++) if (embedded[i]) searching.push(i);
      const sources: number[] = [];
      const targets: number[] = [];
      const similarities: number[] = [];
      await forEachNeighbourBatch(activityLiveness(), vectors, step.collection, searching.map((i) => ids[i]), GRAPH_K + 1, async (start, hits) => {
        hits.forEach((itemHits, b) => {
          const source = searching[start + b];
          for (const hit of itemHits) {
            // Hits the version does not hold (vectors are shared with other versions) are not neighbours.
            const target = ordinalOf(ids, hit.id);
            if (target === -1 || target === source) continue;
            sources.push(source);
            targets.push(target);
            similarities.push(1 - hit.distance);
          }
        });
      });
      await writeKnnChunk(db, step.versionId, step.chunk.ordinal, encodeKnnHits(sources, targets, similarities));
      const report = createProgressReporter(db, step, 'analyze', 'Searching neighbours', { from: 0, to: 0.8 });
      await report(await storedKnnChunks(db, step.versionId), step.chunks, true);
      return { searched: searching.length, hits: sources.length };
    },

    /** Clusters and scores the stored graph with typed arrays, lays out the map, and replaces them in one transaction. */
    async clusterStoredGraph(step: KnnStep): Promise<{ items: number; edges: number }> {
      const context = Context.current();
      const stored = await clusteredStoredGraph(db, step, context);
      const { version, items, ids, manifest, graph, levels, embedded, reference } = stored;
      const report = createProgressReporter(db, step, 'analyze', 'Clustering', { from: 0.8, to: 1 });
      const layout = await layoutMap({
        count: ids.length,
        embedded,
        neighboursOf: (i) => neighboursIn(graph, i),
        vectorsOf: (indexes) => storedVectors(vectors, step.collection, indexes.map((i) => ids[i])),
      });
      // Points in a random order, as analyzeDataset writes them (any first part of the map's pages is an even sample).
      const mapPoints = mapPointSlices(shuffled(embedded, 11), ids, layout.positions, WRITE_SLICE);
      context.heartbeat();

      function* clusterSlices(): Generator<ClusteringSlice> {
        for (const [threshold, labels] of levels.entries()) yield* clusterLevelSlices(threshold, labels, items);
      }
      // A full analysis's graph is recorded with it, so the next reindex may extend it (an extended one recorded itself).
      const graphManifest = manifest ? undefined : { vectorSpaceId: version.vector_space_id, ids, searched: items.embedded, chunks: step.chunks };
      const analysedGraph = { chunks: step.chunks, items: ids.length };
      await replaceAnalysis(db, version.id, { clustering: clusterSlices(), scores: scoreSlices(stored), reference, mapPoints, graphManifest, analysedGraph }, () => context.heartbeat());
      if (store) await tierDuplicatePairs({ db, store }, version.id, () => context.heartbeat());
      await report(1, 1, true);
      return { items: ids.length, edges: undirectedEdgeCount(graph) };
    },

    /**
     * After an extension of the stored graph (mergeNewNeighbours): clusters and scores it as clusterStoredGraph does,
     * but writes only what differs from the stored analysis (clusters no longer as stored, scores and issues that
     * changed) and places only the items the map lacks, from their neighbours on the map as it is
     * (docs/decisions.md "Re-clustering only what changed").
     */
    async reclusterStoredGraph(step: KnnStep): Promise<{ items: number; edges: number; rewritten: ReclusterCounts }> {
      const context = Context.current();
      const stored = await clusteredStoredGraph(db, step, context);
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
        context.heartbeat();
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

      const newMapPoints = await placeChangedItems(db, vectors, step.collection, stored, changed, placeOfId);
      rewritten.mapPoints = newMapPoints.length;
      context.heartbeat();

      const analysedGraph = { chunks: step.chunks, items: ids.length };
      await updateAnalysis(db, version.id, { removedClusters, clustering: clusterSlices(), scores: changedScores(), reference: stored.reference, newMapPoints, analysedGraph }, () =>
        context.heartbeat(),
      );
      if (store) await tierDuplicatePairs({ db, store }, version.id, () => context.heartbeat());
      await report(1, 1, true);
      return { items: ids.length, edges: undirectedEdgeCount(graph), rewritten };
    },
  });
}

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

type StoredGraphAnalysis = Awaited<ReturnType<typeof clusteredStoredGraph>>;

/** The stored graph of a step's version over its items now (typed arrays), clustered at the five thresholds, and the outlier reference. */
async function clusteredStoredGraph(db: Db, step: KnnStep, context: Context) {
  const version = await findVersion(db, step.versionId);
  if (!version) throw new Error(`version ${step.versionId} is gone`);
  const items = await indexItemColumns(db, version.id);
  const { ids } = items;
  // An extended graph's ordinals are its manifest's (new items after the others); a full analysis's are by id.
  const manifest = await findKnnGraphManifest(db, version.id);
  const placeOf = manifest && placesIn(placeMap(ids), manifest.ids);
  const graph = emptyKnnGraph(ids.length, GRAPH_K + 1);
  await forEachKnnChunk(db, version.id, step.chunks, (hits, chunk) => {
    addKnnHits(graph, hits, chunk, placeOf);
    context.heartbeat();
  });
  const report = createProgressReporter(db, step, 'analyze', 'Clustering', { from: 0.8, to: 1 });
  await report(0, 1, true);
  // A level at a time, the event loop let through between levels so the timer's heartbeats go on (seconds each at 1,000,000 media).
  const levels: Int32Array[] = [];
  for (const level of knnGraphLevels(graph, CLUSTER_SIMILARITY_CUTOFFS)) {
    levels.push(level);
    await setImmediatePromise();
  }
  const embedded: number[] = [];
  items.embedded.forEach((yes, i) => yes && embedded.push(i));
  const groupOf = (i: number) => items.parents.get(i);
  const itemOf = (i: number): NeighbourItem => ({ neighbours: neighboursIn(graph, i), group: groupOf(i) });
  /** Each embedded item's meanTopK, by its place among `embedded`. */
  const topK = Float64Array.from(embedded, (i) => meanTopKIn(graph, i));
  const reference = statsOfMeanTopK(topK);
  return { version, items, ids, manifest, placeOf, graph, levels, embedded, groupOf, itemOf, topK, reference };
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

/** Every embedded item's neighbour scores, a slice at a time (computed as the service writes them). */
function* scoreSlices({ ids, embedded, groupOf, itemOf, reference }: StoredGraphAnalysis): Generator<ScoredMedia> {
  for (let start = 0; start < embedded.length; start += WRITE_SLICE) {
    const slice = embedded.slice(start, start + WRITE_SLICE);
    const scores = scoreNeighbours(slice.map(itemOf), ids, { reference, groupOf });
    yield slice.map((i, b) => ({ id: ids[i], score: scores[b] }));
  }
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
 * else near the nearest of an even sample of the placed items). Every other embedded item is on the map (the stored
 * analysis placed it), so only the points of the changed items' neighbours and of the sample are read.
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
  await placeItems({ positions, placed, items: unplaced, neighboursOf: (i) => neighboursIn(graph, i), vectorsOf, sample, sampleVectors });
  return shuffled(unplaced, 11).map((i) => ({ mediaId: ids[i], x: positions[i * 2], y: positions[i * 2 + 1] }));
}

/**
 * One threshold's clusters and memberships, a slice of about WRITE_SLICE rows at a time (each cluster is opened at
 * its smallest member, so with or before its memberships); with
 * `stored` (keptClusters), a component that keeps a stored cluster writes only the memberships of its members that
 * were not in it, and the cluster's counts if its members changed.
 */
function* clusterLevelSlices(threshold: number, labels: Int32Array, items: IndexItemColumns, stored?: StoredClusters): Generator<Required<ClusteringSlice>> {
  const videos = new Map<string, number>();
  const videoOf = new Int32Array(items.ids.length).fill(-1);
  for (const [i, parent] of items.parents) {
    if (!videos.has(parent)) videos.set(parent, videos.size);
    videoOf[i] = videos.get(parent)!;
  }
  const counts = componentCounts(labels, videoOf);
  const clusterIds: string[] = [];
  const countsOf = (id: string, label: number): NewCluster => {
    const size = counts.size[label];
    return { id, threshold, n_images: size - counts.frames[label], n_frames: counts.frames[label], n_videos: counts.videos[label], size };
  };
  let slice: Required<ClusteringSlice> = { clusters: [], members: [], changed: [] };
  const rows = () => slice.clusters.length + slice.members.length + slice.changed.length;
  for (let i = 0; i < items.ids.length; i++) {
    if (rows() >= WRITE_SLICE) {
      yield slice;
      slice = { clusters: [], members: [], changed: [] };
    }
    const label = labels[i];
    if (stored && !stored.affected[label]) continue;
    const keptCluster = stored ? stored.keptOf[label] : -1;
    if (label === i) {
      if (keptCluster === -1) slice.clusters.push(countsOf((clusterIds[i] = randomUUID()), label));
      else if (stored!.changed[keptCluster]) slice.changed.push(countsOf(stored!.storedIds[keptCluster], label));
    }
    if (keptCluster !== -1 && stored!.storedOf[i] === keptCluster) continue;
    slice.members.push({ threshold, media_id: items.ids[i], cluster_id: keptCluster === -1 ? clusterIds[label] : stored!.storedIds[keptCluster] });
  }
  if (rows() > 0) yield slice;
}
