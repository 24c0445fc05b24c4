import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import { clearKnnEdges, storedKnnChunks, writeKnnChunk } from '../db/repositories/knnEdges';
import { indexItemColumns, indexItemCount, type IndexItemColumns } from '../db/repositories/media';
import { headVersion } from '../db/repositories/versions';
import { ordinalOf } from '../lib/clustering/incrementalGraph';
import { encodeKnnHits, GRAPH_K } from '../lib/clustering/knnGraph';
import type { FrameVideos } from '../lib/clustering/ownVideoHits';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import type { KnnChunk, KnnChunkStep, KnnPlan } from '../workflows/contracts';
import type { Liveness } from './taskLiveness';
import { createProgressReporter, type TaskRef } from './taskProgress';
import { forEachNeighbourBatch, frameVideosOfColumns } from './vectorNeighbours';

/** Chunks of `size` over `count` items by ordinal. */
export function chunksOf(count: number, size: number): KnnChunk[] {
  return Array.from({ length: Math.ceil(count / size) }, (_, ordinal) => ({
    ordinal,
    start: ordinal * size,
    end: Math.min(count, (ordinal + 1) * size),
  }));
}

/**
 * The search half of the analysis as fan-out (docs/decisions.md "Analysis as fan-out"): `planChunks` splits the
 * version's images and frames into chunks, `searchChunk` (any worker, any number at once) stores one chunk's kNN hits
 * in knn_edges; services/graphClustering.ts reads them back.
 */
export function createKnnGraphSearch(deps: { db: Db; vectors: VectorStore; chunks: { size: number; concurrency: number } }) {
  const { db, vectors } = deps;
  // Every chunk maps hits to ordinals through all the version's ids: loaded once per analysis and worker.
  let itemsOfAnalysis: { analysisId: string; items: Promise<IndexItemColumns & { videos: FrameVideos }> } | undefined;
  const itemIdsOf = (step: KnnChunkStep) => {
    if (itemsOfAnalysis?.analysisId !== step.analysisId) {
      const items = indexItemColumns(db, step.versionId).then((columns) => ({ ...columns, videos: frameVideosOfColumns(columns) }));
      itemsOfAnalysis = { analysisId: step.analysisId, items };
    }
    const loading = itemsOfAnalysis.items;
    loading.catch(() => (itemsOfAnalysis = undefined));
    return loading;
  };

  return {
    /** Chunks of the head version's images and frames (by ordinal), its stored graph forgotten. */
    async planChunks(ref: TaskRef): Promise<KnnPlan> {
      const version = await headVersion(db, ref.datasetId);
      const count = await indexItemCount(db, version.id);
      await clearKnnEdges(db, version.id);
      const chunks = chunksOf(count, deps.chunks.size);
      return { versionId: version.id, collection: imageCollection(version.vector_space_id), analysisId: randomUUID(), chunks, concurrency: deps.chunks.concurrency };
    },

    /** Searches the GRAPH_K + 1 nearest of a chunk's embedded items and stores the hits; a repeat overwrites. */
    async searchChunk(live: Liveness, step: KnnChunkStep): Promise<{ searched: number; hits: number }> {
      const { ids, embedded, videos } = await itemIdsOf(step);
      const searching: number[] = [];
      for (let i = step.chunk.start; i < step.chunk.end; i++) if (embedded[i]) searching.push(i);
      const sources: number[] = [];
      const targets: number[] = [];
      const similarities: number[] = [];
      await forEachNeighbourBatch(live, vectors, step.collection, searching.map((i) => ids[i]), GRAPH_K + 1, async (start, hits) => {
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
      }, videos);
      await writeKnnChunk(db, step.versionId, step.chunk.ordinal, encodeKnnHits(sources, targets, similarities));
      const report = createProgressReporter(db, step, 'analyze', 'Searching neighbours', { from: 0, to: 0.8 });
      await report(await storedKnnChunks(db, step.versionId), step.chunks, true);
      return { searched: searching.length, hits: sources.length };
    },
  };
}
