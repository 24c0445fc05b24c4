import { patched } from '@temporalio/workflow';
import pLimit from 'p-limit';
import { knnGraph, storedGraph } from './activityProxies';

/**
 * Clusters and scores the dataset's head version as fan-out: neighbour-search chunks, `concurrency` at a time,
 * that every worker on the queue takes (a killed worker loses only the chunks it held: Temporal retries them),
 * then one step that clusters the stored graph. One event group per chunk: ~1,000 chunks for 10M media.
 */
export async function analyzeInChunks(ref: { taskId: string; datasetId: string }): Promise<void> {
  const plan = await knnGraph.planKnnChunks(ref);
  const step = { ...ref, versionId: plan.versionId, collection: plan.collection, chunks: plan.chunks.length };
  const limit = pLimit(plan.concurrency);
  await Promise.all(plan.chunks.map((chunk) => limit(() => knnGraph.searchKnnChunk({ ...step, analysisId: plan.analysisId, chunk }))));
  await storedGraph.clusterStoredGraph(step);
}

/**
 * A reindex's analysis: when the stored graph can be extended (planIncrementalKnn), only the new media are searched,
 * in chunks as above, entered into the lists they belong to, and the stored graph re-clustered, writing only what
 * changed (reclusterStoredGraph); otherwise the full analysis. Histories started before the incremental reindex
 * replay the full analysis they recorded.
 */
export async function reanalyzeInChunks(ref: { taskId: string; datasetId: string }): Promise<void> {
  if (!patched('incremental-reindex')) return analyzeInChunks(ref);
  const plan = await knnGraph.planIncrementalKnn(ref);
  if (plan.kind === 'full') return analyzeInChunks(ref);
  const step = { ...ref, versionId: plan.versionId, collection: plan.collection, analysisId: plan.analysisId, baseChunks: plan.baseChunks, chunks: plan.chunks.length };
  const limit = pLimit(plan.concurrency);
  await Promise.all(plan.chunks.map((chunk) => limit(() => knnGraph.searchNewKnnChunk({ ...step, chunk }))));
  const merged = await storedGraph.mergeNewNeighbours(step);
  const extended = { ...ref, versionId: merged.versionId, collection: merged.collection, chunks: merged.chunks };
  // Histories started before the re-clustering of only what changed replay the whole rewrite they recorded.
  if (patched('recluster-changed')) await storedGraph.reclusterStoredGraph(extended);
  else await storedGraph.clusterStoredGraph(extended);
}
