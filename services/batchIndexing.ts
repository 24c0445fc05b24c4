import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import { clusterMemberships, type ClusterMembership, type NewCluster } from '../db/repositories/clusters';
import { mapPointsOf, type MapPoint } from '../db/repositories/mapPoints';
import { parentsOf, unplacedBatchItems, type IndexItem } from '../db/repositories/media';
import { headVersion } from '../db/repositories/versions';
import { CLUSTER_SIMILARITY_CUTOFFS, type SimilarityEdge } from '../lib/clustering/clusterByThresholds';
import { placeBatch, type ClusterLink } from '../lib/clustering/placeBatch';
import { placeFromNeighbours, type Neighbour } from '../lib/map/placeFromNeighbours';
import { neighbourStats, scoreNeighbours, type NeighbourItem, type NeighbourStats } from '../lib/quality/neighbourScores';
import { addBatchAnalysis, type AnalysisDeps } from './analysisResults';
import { tierDuplicatePairs } from './duplicateTiers';
import type { Liveness } from './taskLiveness';
import { createProgressReporter, type TaskRef } from './taskProgress';
import { graphNeighbours } from './vectorNeighbours';

/**
 * Places the not yet placed images and frames of one batch into the dataset's clusters at every
 * threshold (see placeBatch) and scores them against the whole dataset, committing through
 * services/analysisResults in one transaction. Safe to repeat: placed items are skipped.
 */
export async function indexBatch(deps: AnalysisDeps, live: Liveness, ref: TaskRef & { batchId: string }): Promise<{ placed: number }> {
  const { db, vectors, store } = deps;
  const version = await headVersion(db, ref.datasetId);
  const items: IndexItem[] = await unplacedBatchItems(db, version.id, ref.batchId);
  if (items.length === 0) return { placed: 0 };
  const report = createProgressReporter(db, ref, 'analyze', 'Placing new media');
  const batchIndex = new Map(items.map((item, i) => [item.id, i]));
  const embedded = items.map((item, i) => ({ item, i })).filter(({ item }) => item.embedded);
  // A video comes in one batch, so the batch holds every frame of its videos.
  const results = await graphNeighbours(live, vectors, version.vector_space_id, items, report);

  // Neighbours outside the batch: their video (for duplicates) and their cluster at each threshold.
  const outsideIds = [...new Set(results.flat().map((hit) => hit.id).filter((id) => !batchIndex.has(id)))];
  // Hits the version does not hold (vectors are shared with other versions) are not neighbours.
  const outside = await parentsOf(db, version.id, outsideIds);
  const memberships = await clusterMemberships(db, version.id, outsideIds);
  const clusterOf = new Map(memberships.map((m) => [`${m.threshold}:${m.media_id}`, m.cluster_id]));
  // Scores index neighbours over the batch followed by the outside items.
  const ids = [...items.map((item) => item.id), ...outside.map((item) => item.id)];
  const groups = [...items.map((item) => item.parent_id ?? undefined), ...outside.map((item) => item.parent_id ?? undefined)];
  const indexOf = new Map(ids.map((id, i) => [id, i]));
  const batchEmbedded = new Map(embedded.map(({ i }, b) => [i, b]));

  const innerEdges: SimilarityEdge[] = [];
  const outsideHits: Array<{ item: number; id: string; similarity: number }> = [];
  const neighbourItems: NeighbourItem[] = embedded.map(({ item, i }, b) => {
    const neighbours = [];
    for (const hit of results[b]) {
      const j = indexOf.get(hit.id);
      if (j === undefined || j === i) continue;
      const similarity = 1 - hit.distance;
      neighbours.push({ index: j, similarity });
      if (j < items.length) innerEdges.push({ a: i, b: j, similarity });
      else outsideHits.push({ item: i, id: hit.id, similarity });
    }
    return { neighbours, group: item.parent_id ?? undefined };
  });

  const mapPoints = await placeOnMap(db, version.id, ids, embedded.map(({ i }) => i), (i) => neighbourItems[batchEmbedded.get(i)!].neighbours);
  const reference: NeighbourStats = version.neighbour_stats ?? neighbourStats(neighbourItems);
  const scores = scoreNeighbours(neighbourItems, ids, { reference, groupOf: (index) => groups[index] });

  const clusterRows: NewCluster[] = [];
  const memberRows: ClusterMembership[] = [];
  CLUSTER_SIMILARITY_CUTOFFS.forEach((cutoff, threshold) => {
    const links: ClusterLink[] = outsideHits.flatMap((hit) => {
      const clusterId = clusterOf.get(`${threshold}:${hit.id}`);
      return clusterId ? [{ item: hit.item, clusterId, similarity: hit.similarity }] : [];
    });
    const newClusters = new Map<number, string>();
    placeBatch(items.length, innerEdges, links, cutoff).forEach((placement, i) => {
      let clusterId: string;
      if ('clusterId' in placement) {
        clusterId = placement.clusterId;
      } else {
        clusterId = newClusters.get(placement.group) ?? randomUUID();
        if (!newClusters.has(placement.group)) {
          newClusters.set(placement.group, clusterId);
          clusterRows.push({ id: clusterId, threshold, n_images: 0, n_frames: 0, n_videos: 0, size: 0 });
        }
      }
      memberRows.push({ threshold, media_id: items[i].id, cluster_id: clusterId });
    });
  });
  await addBatchAnalysis(db, version.id, {
    clusters: clusterRows,
    members: memberRows,
    scores: embedded.map(({ item }, b) => ({ id: item.id, score: scores[b] })),
    mapPoints,
  });
  if (store) await tierDuplicatePairs({ db, store }, version.id);
  await report(embedded.length + 1, embedded.length + 1, true);
  return { placed: items.length };
}

/**
 * Map points of a batch's embedded items (`batch`, indexes into `ids`) placed from their neighbours'
 * points; items no placed neighbour reaches wait for the next full layout (a reindex).
 */
async function placeOnMap(db: Db, versionId: string, ids: string[], batch: number[], neighboursOf: (i: number) => readonly Neighbour[]): Promise<MapPoint[]> {
  const positions = new Float32Array(ids.length * 2);
  const placed = new Uint8Array(ids.length);
  const indexOf = new Map(ids.map((id, i) => [id, i]));
  for (const point of await mapPointsOf(db, versionId, ids)) {
    const i = indexOf.get(point.mediaId)!;
    positions.set([point.x, point.y], i * 2);
    placed[i] = 1;
  }
  const unreached = new Set(placeFromNeighbours(positions, placed, neighboursOf, batch));
  return batch.filter((i) => !unreached.has(i)).map((i) => ({ mediaId: ids[i], x: positions[i * 2], y: positions[i * 2 + 1] }));
}

