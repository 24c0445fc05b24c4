import { randomUUID } from 'node:crypto';
import type { ClusterMembership, NewCluster } from '../db/repositories/clusters';
import { indexItems } from '../db/repositories/media';
import { headVersion } from '../db/repositories/versions';
import { clusterByThresholds, type SimilarityEdge } from '../lib/clustering/clusterByThresholds';
import { layoutMap } from '../lib/map/layoutMap';
import { shuffled } from '../lib/map/shuffled';
import { neighbourStats, scoreNeighbours, type NeighbourItem } from '../lib/quality/neighbourScores';
import { imageCollection } from '../lib/vectors/vectorStore';
import { mapPointSlices, replaceAnalysis, type AnalysisDeps } from './analysisResults';
import { tierDuplicatePairs } from './duplicateTiers';
import type { Liveness } from './taskLiveness';
import { createProgressReporter, type TaskRef } from './taskProgress';
import { graphNeighbours, storedVectors } from './vectorNeighbours';

/**
 * The analysis in one pass, no workflow's step but the reference the fan-out (services/knnGraphSearch.ts,
 * graphClustering.ts) must equal, and the stage the benches time: builds the kNN similarity graph from the vector
 * index (never all pairs), clusters it at the five thresholds, scores every item, lays out the map and commits it
 * through services/analysisResults in one transaction. With `layMap: false` it leaves the map due, as the fan-out does
 * (a MAP_LAYOUT task lays it out after READY), so that a bench compares the same work.
 */
export async function analyzeDataset(deps: AnalysisDeps, live: Liveness, ref: TaskRef, options: { layMap?: boolean } = {}): Promise<{ items: number; edges: number }> {
  const { db, vectors, store } = deps;
  const version = await headVersion(db, ref.datasetId);
  const items = await indexItems(db, version.id);
  const indexOf = new Map(items.map((item, i) => [item.id, i]));
  const embedded = items.map((item, i) => ({ item, i })).filter(({ item }) => item.embedded);
  const report = createProgressReporter(db, ref, 'analyze', 'Clustering');

  const neighbourItems: NeighbourItem[] = items.map((item) => ({ neighbours: [], group: item.parent_id ?? undefined }));
  const results = await graphNeighbours(live, vectors, version.vector_space_id, items, report);
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
  const layout =
    options.layMap === false
      ? undefined
      : await layoutMap({
          count: items.length,
          embedded: embedded.map(({ i }) => i),
          neighboursOf: (i) => neighbourItems[i].neighbours,
          vectorsOf: (indexes) => storedVectors(vectors, collection, indexes.map((i) => ids[i])),
        });
  // Points in a random order, so that any first part of the map's pages is an even sample of it: the web
  // app draws the first page while the rest loads, and only the first points while the map moves.
  const mapPoints = layout && mapPointSlices(shuffled(embedded, 11).map(({ i }) => i), ids, layout.positions);

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
  if (store) await tierDuplicatePairs({ db, store }, version.id);
  await report(embedded.length + 1, embedded.length + 1, true);
  return { items: items.length, edges: edgeCount };
}
