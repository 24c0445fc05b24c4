import { randomUUID } from 'node:crypto';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import type { Db } from '../db/connection';
import type { NewCluster } from '../db/repositories/clusters';
import { findKnnGraphManifest, forEachKnnChunk } from '../db/repositories/knnEdges';
import { indexItemColumns, type IndexItemColumns } from '../db/repositories/media';
import { findVersion, type DatasetVersion } from '../db/repositories/versions';
import { CLUSTER_SIMILARITY_CUTOFFS } from '../lib/clustering/clusterByThresholds';
import { componentCounts } from '../lib/clustering/componentCounts';
import { placeMap, placesIn } from '../lib/clustering/incrementalGraph';
import type { StoredClusters } from '../lib/clustering/keptClusters';
import { addKnnHits, emptyKnnGraph, GRAPH_K, knnGraphLevels, meanTopKIn, neighboursIn, undirectedEdgeCount } from '../lib/clustering/knnGraph';
import { scoreNeighbours, statsOfMeanTopK, type NeighbourItem } from '../lib/quality/neighbourScores';
import type { KnnStep } from '../workflows/contracts';
import { replaceAnalysis, type AnalysisDeps, type ClusteringSlice, type ScoredMedia } from './analysisResults';
import { tierDuplicatePairs } from './duplicateTiers';
import type { Liveness } from './taskLiveness';
import { createProgressReporter } from './taskProgress';

/** Rows written (and items scored) at a time in the final step. */
export const WRITE_SLICE = 5000;

/**
 * The last step of the analysis as fan-out (docs/decisions.md "Analysis as fan-out"): reads the kNN hits the chunks
 * stored into typed arrays, clusters at the five thresholds, scores and replaces it all in one transaction
 * (services/analysisResults). The map is due then: the MAP_LAYOUT task lays it out after the dataset is READY
 * (services/mapLayout.ts). Same results as analyzeDataset (services/singlePassAnalysis.ts), which lays the map out itself.
 */
export async function clusterStoredGraph(deps: AnalysisDeps, live: Liveness, step: KnnStep): Promise<{ items: number; edges: number }> {
  const { db, store } = deps;
  const stored = await clusteredStoredGraph(db, live, step);
  const { version, items, ids, manifest, graph, levels, reference } = stored;
  const report = createProgressReporter(db, step, 'analyze', 'Clustering', { from: 0.8, to: 1 });

  function* clusterSlices(): Generator<ClusteringSlice> {
    for (const [threshold, labels] of levels.entries()) yield* clusterLevelSlices(threshold, labels, items);
  }
  // A full analysis's graph is recorded with it, so the next reindex may extend it (an extended one recorded itself).
  const graphManifest = manifest ? undefined : { vectorSpaceId: version.vector_space_id, ids, searched: items.embedded, chunks: step.chunks };
  const analysedGraph = { chunks: step.chunks, items: ids.length };
  await replaceAnalysis(db, version.id, { clustering: clusterSlices(), scores: scoreSlices(stored), reference, graphManifest, analysedGraph }, () => live.heartbeat());
  if (store) await tierDuplicatePairs({ db, store }, version.id, () => live.heartbeat());
  await report(1, 1, true);
  return { items: ids.length, edges: undirectedEdgeCount(graph) };
}

export type StoredGraphAnalysis = Awaited<ReturnType<typeof clusteredStoredGraph>>;

/** The stored graph of a step's version over its items now (typed arrays), clustered at the five thresholds, and the outlier reference. */
export async function clusteredStoredGraph(db: Db, live: Liveness, step: KnnStep) {
  const version = await findVersion(db, step.versionId);
  if (!version) throw new Error(`version ${step.versionId} is gone`);
  const { items, ids, manifest, placeOf, graph } = await storedGraphOf(db, live, version, step.chunks);
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
 * The stored kNN graph of `version` (chunk rows 0 … chunks-1) over its items now, as typed arrays. An extended graph's
 * ordinals are its manifest's (new items after the others); a full analysis's are by id.
 */
export async function storedGraphOf(db: Db, live: Liveness, version: DatasetVersion, chunks: number) {
  const items = await indexItemColumns(db, version.id);
  const { ids } = items;
  const manifest = await findKnnGraphManifest(db, version.id);
  const placeOf = manifest && placesIn(placeMap(ids), manifest.ids);
  const graph = emptyKnnGraph(ids.length, GRAPH_K + 1);
  await forEachKnnChunk(db, version.id, chunks, (hits, chunk) => {
    addKnnHits(graph, hits, chunk, placeOf);
    live.heartbeat();
  });
  return { items, ids, manifest, placeOf, graph };
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
 * One threshold's clusters and memberships, a slice of about WRITE_SLICE rows at a time (each cluster is opened at
 * its smallest member, so with or before its memberships); with
 * `stored` (keptClusters), a component that keeps a stored cluster writes only the memberships of its members that
 * were not in it, and the cluster's counts if its members changed.
 */
export function* clusterLevelSlices(threshold: number, labels: Int32Array, items: IndexItemColumns, stored?: StoredClusters): Generator<Required<ClusteringSlice>> {
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
