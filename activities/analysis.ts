import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import { clusterMemberships, type ClusterMembership, type NewCluster } from '../db/repositories/clusters';
import { indexItems, parentsOf, unplacedBatchItems, type IndexItem } from '../db/repositories/media';
import { mapPointsOf, type MapPoint } from '../db/repositories/mapPoints';
import { headVersion } from '../db/repositories/versions';
import { clusterByThresholds, CLUSTER_SIMILARITY_CUTOFFS, type SimilarityEdge } from '../lib/clustering/clusterByThresholds';
import { placeBatch, type ClusterLink } from '../lib/clustering/placeBatch';
import { layoutMap } from '../lib/map/layoutMap';
import { shuffled } from '../lib/map/shuffled';
import { placeFromNeighbours, type Neighbour } from '../lib/map/placeFromNeighbours';
import { neighbourStats, scoreNeighbours, type NeighbourItem, type NeighbourStats } from '../lib/quality/neighbourScores';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { addBatchAnalysis, mapPointSlices, replaceAnalysis } from '../services/analysisResults';
import { tierDuplicatePairs } from '../services/duplicateTiers';
import type { ObjectStore } from '../lib/storage/objectStore';
import { createProgressReporter, type TaskRef } from '../services/taskProgress';
import { storedVectors, vectorNeighbours } from '../services/vectorNeighbours';
import { activityLiveness, heartbeating } from './liveness';

/** Neighbours per item in the kNN graph. */
export const GRAPH_K = 10;

/**
 * Clustering and neighbour scores. `analyzeDataset` builds the kNN similarity graph from the vector
 * index (never all pairs), clusters it at the five thresholds and scores every item; `indexBatch`
 * places a batch of added media into the existing clustering and scores it against the whole
 * dataset. Each commits what it found through services/analysisResults (one transaction each).
 */
export function createAnalysisActivities(deps: { db: Db; vectors: VectorStore; store?: ObjectStore }) {
  const { db, vectors, store } = deps;
  // Pairs get their tiers from thumbnails (services/duplicateTiers.ts); without a store (stage benches) they stay untiered.
  const tierPairs = (versionId: string) => (store ? tierDuplicatePairs({ db, store }, versionId) : Promise.resolve(0));

  const neighboursOf = (collection: string, ids: string[], onBatch: (done: number) => Promise<void>) =>
    vectorNeighbours(activityLiveness(), vectors, collection, ids, GRAPH_K + 1, onBatch);

  /**
   * Map points of a batch's embedded items (`batch`, indexes into `ids`) placed from their neighbours'
   * points; items no placed neighbour reaches wait for the next full layout (a reindex).
   */
  const placeOnMap = async (versionId: string, ids: string[], batch: number[], neighboursOf: (i: number) => readonly Neighbour[]): Promise<MapPoint[]> => {
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
  };

  return heartbeating({
    async analyzeDataset(ref: TaskRef): Promise<{ items: number; edges: number }> {
      const version = await headVersion(db, ref.datasetId);
      const items = await indexItems(db, version.id);
      const indexOf = new Map(items.map((item, i) => [item.id, i]));
      const embedded = items.map((item, i) => ({ item, i })).filter(({ item }) => item.embedded);
      const report = createProgressReporter(db, ref, 'analyze', 'Clustering');

      const neighbourItems: NeighbourItem[] = items.map((item) => ({ neighbours: [], group: item.parent_id ?? undefined }));
      const results = await neighboursOf(imageCollection(version.vector_space_id), embedded.map(({ item }) => item.id), (done) =>
        report(done, embedded.length + 1),
      );
      // Each undirected edge once, without a map keyed by pairs (at 1,000,000 media that map alone
      // outgrew the JS heap): a hit j < a is new only if a was not among j's hits, which are complete
      // since results come in item order. Hits are dropped as they are read.
      let edges: SimilarityEdge[] = [];
      for (let b = 0; b < results.length; b++) {
        const a = embedded[b].i;
        for (const hit of results[b]) {
          const j = indexOf.get(hit.id);
          if (j === undefined || j === a) continue;
          const similarity = 1 - hit.distance;
          neighbourItems[a].neighbours.push({ index: j, similarity });
          if (j > a || !neighbourItems[j].neighbours.some((n) => n.index === a)) edges.push({ a: Math.min(a, j), b: Math.max(a, j), similarity });
        }
        results[b] = [];
      }
      const edgeCount = edges.length;
      const levels = clusterByThresholds(items.length, edges);
      edges = [];
      const reference = neighbourStats(embedded.map(({ i }) => neighbourItems[i]));
      const ids = items.map((item) => item.id);
      const scores = scoreNeighbours(neighbourItems, ids, { reference });
      const collection = imageCollection(version.vector_space_id);
      const layout = await layoutMap({
        count: items.length,
        embedded: embedded.map(({ i }) => i),
        neighboursOf: (i) => neighbourItems[i].neighbours,
        vectorsOf: (indexes) => storedVectors(vectors, collection, indexes.map((i) => ids[i])),
      });
      // Points in a random order, so that any first part of the map's pages is an even sample of it: the web
      // app draws the first page while the rest loads, and only the first points while the map moves.
      const mapPoints = mapPointSlices(
        shuffled(embedded, 11).map(({ i }) => i),
        ids,
        layout.positions,
      );

      const clusterRows: NewCluster[] = [];
      const memberRows: ClusterMembership[] = [];
      levels.forEach((labels, threshold) => {
        const members = new Map<number, number[]>();
        labels.forEach((label, i) => {
          const list = members.get(label);
          if (list) list.push(i);
          else members.set(label, [i]);
        });
        for (const indexes of members.values()) {
          const id = randomUUID();
          const frames = indexes.filter((i) => items[i].kind === 'VIDEO_FRAME');
          clusterRows.push({
            id,
            threshold,
            n_images: indexes.length - frames.length,
            n_frames: frames.length,
            n_videos: new Set(frames.map((i) => items[i].parent_id)).size,
            size: indexes.length,
          });
          for (const i of indexes) memberRows.push({ threshold, media_id: items[i].id, cluster_id: id });
        }
      });
      await replaceAnalysis(db, version.id, {
        clustering: [{ clusters: clusterRows, members: memberRows }],
        scores: [embedded.map(({ item, i }) => ({ id: item.id, score: scores[i] }))],
        reference,
        mapPoints,
      });
      await tierPairs(version.id);
      await report(embedded.length + 1, embedded.length + 1, true);
      return { items: items.length, edges: edgeCount };
    },

    /**
     * Places the not yet placed images and frames of one batch into the dataset's clusters at every
     * threshold (see placeBatch) and scores them against the whole dataset. Safe to repeat: placed
     * items are skipped.
     */
    async indexBatch(ref: TaskRef & { batchId: string }): Promise<{ placed: number }> {
      const version = await headVersion(db, ref.datasetId);
      const items: IndexItem[] = await unplacedBatchItems(db, version.id, ref.batchId);
      if (items.length === 0) return { placed: 0 };
      const report = createProgressReporter(db, ref, 'analyze', 'Placing new media');
      const batchIndex = new Map(items.map((item, i) => [item.id, i]));
      const embedded = items.map((item, i) => ({ item, i })).filter(({ item }) => item.embedded);
      const results = await neighboursOf(imageCollection(version.vector_space_id), embedded.map(({ item }) => item.id), (done) =>
        report(done, embedded.length + 1),
      );

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

      const mapPoints = await placeOnMap(version.id, ids, embedded.map(({ i }) => i), (i) => neighbourItems[batchEmbedded.get(i)!].neighbours);
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
      await tierPairs(version.id);
      await report(embedded.length + 1, embedded.length + 1, true);
      return { placed: items.length };
    },
  });
}
