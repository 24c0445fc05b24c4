import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import { findKnnGraphManifest, forEachKnnCandidates, knnGraphChunks, forEachKnnChunk, storedKnnChunks, storeExtendedKnnGraph, writeKnnCandidateChunk } from '../db/repositories/knnEdges';
import { indexItemColumns, type IndexItemColumns } from '../db/repositories/media';
import { findVersion, headVersion } from '../db/repositories/versions';
import { extendGraph, ordinalOf, placeMap, placesIn, type GraphExtension } from '../lib/clustering/incrementalGraph';
import { addKnnHits, emptyKnnGraph, encodeKnnHits, encodeLists, enterNeighbour, GRAPH_K, KNN_HIT_BYTES } from '../lib/clustering/knnGraph';
import type { FrameVideos } from '../lib/clustering/ownVideoHits';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import type { IncrementalKnnPlan, KnnStep, NewKnnChunkStep, NewKnnStep } from '../workflows/contracts';
import { chunksOf } from './knnGraphSearch';
import type { Liveness } from './taskLiveness';
import { createProgressReporter, type TaskRef } from './taskProgress';
import { forEachNeighbourBatch, frameVideosOfColumns } from './vectorNeighbours';

/**
 * How many nearest a new item searches to find the existing items it enters: an existing item whose list a new item
 * enters is found only if it is among the new item's REVERSE_K nearest (docs/decisions.md "Incremental reindex").
 */
export const REVERSE_K = 50;

type Extension = Extract<GraphExtension, { kind: 'incremental' }>;

/** How the head version's stored graph extends to its items now, or why it cannot. */
async function extensionOf(db: Db, vectors: VectorStore, versionId: string, maxShare: number): Promise<GraphExtension & { current: IndexItemColumns; storedChunks: number }> {
  const version = await findVersion(db, versionId);
  if (!version) throw new Error(`version ${versionId} is gone`);
  const current = await indexItemColumns(db, versionId);
  const manifest = await findKnnGraphManifest(db, versionId);
  const extension = extendGraph(manifest, { vectorSpaceId: version.vector_space_id, ...current }, maxShare);
  // Vectors the version does not hold (a restore, a clone's lineage) take search slots a stored list does not record.
  const embedded = current.embedded.reduce((sum, flag) => sum + flag, 0);
  if (extension.kind === 'incremental' && (await vectors.count(imageCollection(version.vector_space_id))) > embedded) {
    return { kind: 'full', reason: 'the vector space holds media the version does not', current, storedChunks: 0 };
  }
  return { ...extension, current, storedChunks: manifest?.chunks ?? 0 };
}

/**
 * The incremental reindex (docs/decisions.md "Incremental reindex"): `planIncrementalKnn` decides whether the head
 * version's stored graph can be extended; `searchNewKnnChunk` searches a chunk of the new items, storing their lists
 * and the existing items each may enter; `mergeNewNeighbours` enters them, stores the changed lists as one more chunk
 * and records the extended graph; then clusterStoredGraph re-clusters as after a full analysis.
 */
export function createIncrementalKnn(deps: { db: Db; vectors: VectorStore; chunks: { size: number; concurrency: number }; maxShare: number }) {
  const { db, vectors } = deps;
  // Every chunk and the merge need the extension (ids, which to search) and each id's ordinal in it: made once per analysis and worker.
  let cached: { analysisId: string; loading: Promise<{ extension: Extension; graphOrdinalOf: Int32Array; sortedIds: string[]; videos: FrameVideos }> } | undefined;
  const load = async (versionId: string) => withOrdinals(versionId, await extensionOf(db, vectors, versionId, deps.maxShare));
  const withOrdinals = (versionId: string, extension: Awaited<ReturnType<typeof extensionOf>>) => {
    if (extension.kind !== 'incremental') throw new Error(`the stored graph of version ${versionId} can no longer be extended: ${extension.reason}`);
    const places = placesIn(placeMap(extension.current.ids), extension.ids);
    const graphOrdinalOf = new Int32Array(places.length);
    places.forEach((place, ordinal) => (graphOrdinalOf[place] = ordinal));
    return { extension, graphOrdinalOf, sortedIds: extension.current.ids, videos: frameVideosOfColumns(extension.current) };
  };
  const extensionFor = (step: NewKnnStep) => {
    if (cached?.analysisId !== step.analysisId) cached = { analysisId: step.analysisId, loading: load(step.versionId) };
    const { loading } = cached;
    loading.catch(() => (cached = undefined));
    return loading;
  };

  return {
    /** A full rebuild and why, or chunks of the items to search (by their place among them). */
    async plan(ref: TaskRef): Promise<IncrementalKnnPlan> {
      const version = await headVersion(db, ref.datasetId);
      const extension = await extensionOf(db, vectors, version.id, deps.maxShare);
      if (extension.kind === 'full') return { kind: 'full', reason: extension.reason };
      const analysisId = randomUUID();
      // This worker's chunks and merge of the analysis start from what the plan found.
      cached = { analysisId, loading: Promise.resolve(withOrdinals(version.id, extension)) };
      const count = extension.searching.length;
      const chunks = chunksOf(count, deps.chunks.size);
      return {
        kind: 'incremental',
        versionId: version.id,
        collection: imageCollection(version.vector_space_id),
        analysisId,
        baseChunks: extension.storedChunks,
        chunks,
        concurrency: deps.chunks.concurrency,
      };
    },

    /**
     * Searches the REVERSE_K + 1 nearest of a chunk of new items: each one's list is its first GRAPH_K + 1 hits (as
     * a full analysis searches), and every existing item among all its hits is a candidate it may enter. Stored as
     * chunk row baseChunks + ordinal; a repeat overwrites.
     */
    async searchNewChunk(live: Liveness, step: NewKnnChunkStep): Promise<{ searched: number; candidates: number }> {
      const { extension, graphOrdinalOf, sortedIds, videos } = await extensionFor(step);
      const searching = extension.searching.slice(step.chunk.start, step.chunk.end);
      const isNew = new Uint8Array(extension.ids.length);
      for (const ordinal of extension.searching) isNew[ordinal] = 1;
      const own = { sources: [] as number[], targets: [] as number[], similarities: [] as number[] };
      const entering = { sources: [] as number[], targets: [] as number[], similarities: [] as number[] };
      await forEachNeighbourBatch(live, vectors, step.collection, searching.map((ordinal) => extension.ids[ordinal]), REVERSE_K + 1, async (start, hits) => {
        hits.forEach((itemHits, b) => {
          const source = searching[start + b];
          itemHits.forEach((hit, rank) => {
            const place = ordinalOf(sortedIds, hit.id);
            if (place === -1) return;
            const target = graphOrdinalOf[place];
            if (target === source) return;
            const similarity = 1 - hit.distance;
            if (rank <= GRAPH_K) {
              own.sources.push(source);
              own.targets.push(target);
              own.similarities.push(similarity);
            }
            if (!isNew[target]) {
              entering.sources.push(target);
              entering.targets.push(source);
              entering.similarities.push(similarity);
            }
          });
        });
      }, videos);
      await writeKnnCandidateChunk(
        db,
        step.versionId,
        step.baseChunks + step.chunk.ordinal,
        encodeKnnHits(own.sources, own.targets, own.similarities),
        encodeKnnHits(entering.sources, entering.targets, entering.similarities),
      );
      const report = createProgressReporter(db, step, 'analyze', 'Searching neighbours of the new media', { from: 0, to: 0.8 });
      await report((await storedKnnChunks(db, step.versionId)) - step.baseChunks, step.chunks, true);
      return { searched: searching.length, candidates: entering.sources.length };
    },

    /**
     * Enters the new items into the existing items' lists they belong to (nearer than the list's last, the list
     * keeping GRAPH_K neighbours or the more it had), stores the changed lists as one more chunk row and records the
     * extended graph, in one transaction. What the re-clustering reads: the step with the graph's chunk count.
     */
    async mergeNewNeighbours(live: Liveness, step: NewKnnStep): Promise<KnnStep & { changed?: number }> {
      const merged = step.baseChunks + step.chunks + 1;
      // A repeat after the transaction below committed finds the graph extended already.
      if ((await knnGraphChunks(db, step.versionId)) === merged) return { ...stepOf(step), chunks: merged };
      const { extension } = await extensionFor(step);
      const graph = emptyKnnGraph(extension.ids.length, GRAPH_K + 1);
      await forEachKnnChunk(db, step.versionId, step.baseChunks + step.chunks, (hits, chunk) => {
        addKnnHits(graph, hits, chunk);
        live.heartbeat();
      });
      const changed = new Set<number>();
      await forEachKnnCandidates(db, step.versionId, step.baseChunks, step.baseChunks + step.chunks, (candidates) => {
        for (let offset = 0; offset < candidates.length; offset += KNN_HIT_BYTES) {
          const existing = candidates.readInt32LE(offset);
          const capacity = Math.max(GRAPH_K, graph.degree[existing]);
          if (enterNeighbour(graph, existing, candidates.readInt32LE(offset + 4), candidates.readDoubleLE(offset + 8), capacity)) changed.add(existing);
        }
        live.heartbeat();
      });
      const version = await findVersion(db, step.versionId);
      const changedLists = encodeLists(graph, [...changed].sort((a, b) => a - b));
      await storeExtendedKnnGraph(db, step.versionId, changedLists, { vectorSpaceId: version!.vector_space_id, ids: extension.ids, searched: extension.searched, chunks: merged });
      return { ...stepOf(step), chunks: merged, changed: changed.size };
    },
  };
}

const stepOf = (step: KnnStep): KnnStep => ({ taskId: step.taskId, datasetId: step.datasetId, versionId: step.versionId, collection: step.collection, chunks: step.chunks });
