import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import {
  addPlacements,
  clearClustering,
  insertClustering,
  refreshExploreCopies,
  removeClusters,
  stageNeighbourScores,
  updateClusterCounts,
  writeNeighbourScores,
  type ClusterMembership,
  type NewCluster,
} from '../db/repositories/clusters';
import { clustersOfMedia, countedKinds, countFacets, recountClusterFacets } from '../db/repositories/clusterFacets';
import { clearKnnEdges, setAnalysedGraph, writeKnnGraphManifest, type AnalysedGraph, type KnnGraphManifest } from '../db/repositories/knnEdges';
import { appendMapPoints, markMapDue, replaceMapPoints, type MapPoint } from '../db/repositories/mapPoints';
import { setNeighbourStats } from '../db/repositories/versions';
import type { NeighbourScores, NeighbourStats } from '../lib/quality/neighbourScores';
import type { ObjectStore } from '../lib/storage/objectStore';
import type { VectorStore } from '../lib/vectors/vectorStore';

/** What an analysis reads and writes; `store` gives duplicate pairs their tiers from thumbnails (services/duplicateTiers.ts), stage benches leave it out. */
export interface AnalysisDeps {
  db: Db;
  vectors: VectorStore;
  store?: ObjectStore;
}

/** Clusters (with their final counts) and the memberships that go with them. */
export interface ClusteringSlice {
  clusters: NewCluster[];
  members: ClusterMembership[];
  /** Stored clusters kept with other members, with their new counts (a re-clustering's). */
  changed?: NewCluster[];
}

export type ScoredMedia = Array<{ id: string; score: NeighbourScores }>;

/** A version's whole analysis: clustering at every threshold, neighbour scores and their reference, map points. */
export interface AnalysisResults {
  /** Slices are produced as they are written, so at 1,000,000 media the rows never sit in memory all at once. */
  clustering: Iterable<ClusteringSlice>;
  scores: Iterable<ScoredMedia>;
  reference: NeighbourStats;
  /**
   * In slices too: a million points held until the transaction's end raised the heap's peak by hundreds of MiB.
   * Without them the map is due: the MAP_LAYOUT task lays it out after the commit (services/mapLayout.ts).
   */
  mapPoints?: Iterable<readonly MapPoint[]>;
  /** What the stored kNN graph the analysis came from is over, recorded with it (a full analysis's). */
  graphManifest?: KnnGraphManifest;
  /** The part of the stored graph the analysis was made from (an analysis of a stored graph's). */
  analysedGraph?: AnalysedGraph;
}

/** The map points of the items at `order` (places in `ids` and `positions`), in that order, a slice of `size` at a time. */
export function* mapPointSlices(order: readonly number[], ids: readonly string[], positions: Float32Array, size = 5000): Generator<MapPoint[]> {
  for (let start = 0; start < order.length; start += size) {
    yield order.slice(start, start + size).map((i) => ({ mediaId: ids[i], x: positions[i * 2], y: positions[i * 2 + 1] }));
  }
}

/**
 * Replaces a version's analysis in one transaction, so Explore never sees half of it; the map gets a new
 * layout id (or is due one) and the per-cluster facet counts are counted again. `afterSlice` runs after each slice is written (the
 * activity reports that it is alive).
 */
export async function replaceAnalysis(db: Db, versionId: string, results: AnalysisResults, afterSlice: () => void = () => {}): Promise<void> {
  await db.transaction(async (trx) => {
    await writeSlices(trx, versionId, await clearClustering(trx, versionId), results, afterSlice, 'all');
    if (results.graphManifest) await writeKnnGraphManifest(trx, versionId, results.graphManifest);
    // An analysis not made from the stored graph leaves it stale: the next reindex starts a new one.
    if (results.analysedGraph) await setAnalysedGraph(trx, versionId, results.analysedGraph);
    else await clearKnnEdges(trx, versionId);
    if (results.mapPoints) await replaceMapPoints(trx, versionId, randomUUID(), results.mapPoints);
    else await markMapDue(trx, versionId);
    // Here, not only at the task's end: that count stops after 30 s, and at 1,000,000 media it took 15-35 s.
    await countFacets(trx, versionId);
  });
}

/** Adds a batch's placements (clusters it opened, memberships, scores, map points) to a version's analysis in one transaction. */
export async function addBatchAnalysis(db: Db, versionId: string, batch: ClusteringSlice & { scores: ScoredMedia; mapPoints: readonly MapPoint[] }): Promise<void> {
  await db.transaction(async (trx) => {
    // The facet counts of the clusters the batch touches are counted again here; the writes below forget every count.
    const counted = await countedKinds(trx, versionId);
    const touched = [...batch.members.map((member) => member.media_id), ...batch.scores.map(({ id }) => id)];
    const clustersBefore = await clustersOfMedia(trx, versionId, touched);
    const clusteringId = await addPlacements(trx, versionId, batch.clusters, batch.members);
    const rescored = await writeNeighbourScores(trx, versionId, batch.scores);
    await refreshExploreCopies(trx, versionId, clusteringId, {
      clusterIds: batch.members.map((member) => member.cluster_id),
      mediaIds: rescored,
      movedMediaIds: batch.members.map((member) => member.media_id),
    });
    await recountClusterFacets(trx, versionId, [...clustersBefore, ...(await clustersOfMedia(trx, versionId, touched))], counted);
    await appendMapPoints(trx, versionId, batch.mapPoints);
  });
}

/** What changed in a version's analysis when its stored graph was extended (docs/decisions.md "Re-clustering only what changed"). */
export interface AnalysisChanges {
  /** Stored clusters no component keeps (merged, split or grown): removed with their memberships. */
  removedClusters: readonly string[];
  /** The clusters opened, the kept clusters whose counts changed, and the memberships that moved or are new. */
  clustering: Iterable<ClusteringSlice>;
  /** Items whose scores or issues differ from the stored ones. */
  scores: Iterable<ScoredMedia>;
  reference: NeighbourStats;
  /** Points of the items the map lacked, added after the others (the layout and its id stay). */
  newMapPoints: readonly MapPoint[];
  /** A layout is due: it is due anew (a new id), so it places the new items too. */
  layoutDue?: boolean;
  /** The part of the extended graph the changes bring the analysis to. */
  analysedGraph: AnalysedGraph;
}

/** Applies an analysis's changes in one transaction, so Explore sees the old analysis or the new one, never half. */
export async function updateAnalysis(db: Db, versionId: string, changes: AnalysisChanges, afterSlice: () => void = () => {}): Promise<void> {
  await db.transaction(async (trx) => {
    await writeSlices(trx, versionId, await removeClusters(trx, versionId, changes.removedClusters), changes, afterSlice, 'changed');
    await appendMapPoints(trx, versionId, changes.newMapPoints);
    if (changes.layoutDue) await markMapDue(trx, versionId);
    await setAnalysedGraph(trx, versionId, changes.analysedGraph);
  });
}

/**
 * Writes an analysis's clustering slices into `clusteringId` and its score slices, then the neighbour reference, and
 * makes Explore's copies agree (previews, media rows' clusters): `'all'`, a whole analysis into a clustering emptied
 * for it, of every cluster; `'changed'`, a re-clustering's, of what the slices changed.
 */
async function writeSlices(
  trx: Parameters<typeof insertClustering>[0],
  versionId: string,
  clusteringId: string,
  analysis: Pick<AnalysisResults, 'clustering' | 'scores' | 'reference'>,
  afterSlice: () => void,
  scope: 'all' | 'changed',
): Promise<void> {
  // Only a re-clustering notes what it changed: a whole analysis chooses every cluster's previews anyway.
  const changed = scope === 'changed' ? { clusterIds: new Set<string>(), mediaIds: new Set<string>(), movedMediaIds: new Set<string>() } : undefined;
  for (const slice of analysis.clustering) {
    await insertClustering(trx, clusteringId, slice.clusters, slice.members, scope === 'all' ? 'empty' : 'existing');
    if (slice.changed?.length) await updateClusterCounts(trx, clusteringId, slice.changed);
    if (changed) {
      for (const cluster of [...slice.clusters, ...(slice.changed ?? [])]) changed.clusterIds.add(cluster.id);
      for (const member of slice.members) {
        changed.clusterIds.add(member.cluster_id);
        changed.movedMediaIds.add(member.media_id);
      }
    }
    afterSlice();
  }
  for (const scored of analysis.scores) {
    // A whole analysis's uniqueness is written with the media rows' clusters, in one rewrite of every row.
    if (changed) for (const id of await writeNeighbourScores(trx, versionId, scored)) changed.mediaIds.add(id);
    else await stageNeighbourScores(trx, versionId, scored);
    afterSlice();
  }
  await setNeighbourStats(trx, versionId, analysis.reference);
  await refreshExploreCopies(trx, versionId, clusteringId, changed ?? 'all');
}
