import { ApplicationFailure } from '@temporalio/common';
import type { IdRange } from '../db/repositories/chunks';
import {
  countMediaToEnrich,
  hasUnclusteredObjects,
  nextMediaToEnrich,
  savePredictedClasses,
  setObjectClusters,
  versionObjectIds,
  type MediaToEnrich,
} from '../db/repositories/enrichment';
import { headVersion, type DatasetVersion } from '../db/repositories/versions';
import { clusterByThresholds } from '../lib/clustering/clusterByThresholds';
import { GRAPH_K } from '../lib/clustering/knnGraph';
import { APPLY_ORDER, type EnrichmentType } from '../lib/enrichment/catalog';
import type { PredictedClass } from '../lib/ml/imageEncoder';
import { contentUuid } from '../lib/sha256';
import { objectCollection } from '../lib/vectors/vectorStore';
import type { ChunkStep } from '../workflows/contracts';
import { writeEnrichedBatch } from './enrichment';
import { ENRICHMENT_PLUGINS } from './enrichmentModels';
import type { EnrichBatch, ModelContext, ModelRun } from './enrichmentModels/plugin';
import { encodeImageBlobs } from './imageEncoding';
import { heartbeatOrStop, type Liveness } from './taskLiveness';
import { createChunkProgressReporter, createProgressReporter, type ProgressReporter, type TaskRef } from './taskProgress';
import { vectorNeighbours } from './vectorNeighbours';

/** Media per model batch (and per transaction). */
const ENRICH_BATCH = 16;

/**
 * Runs the models of the enrichment recorded on a dataset's head version over every media item they
 * have not run on yet (all of them after a copy; the new ones after add_media). Each batch's outputs
 * and its "done" mark are one transaction, so a retried activity resumes without repeating work.
 * Runs on the inference queue; each model is a plugin (services/enrichmentModels).
 */
export function createEnrichmentRuns(context: ModelContext) {
  const { db, store, vectors, encoder } = context;
  const runs = new Map<string, ModelRun<unknown>>(Object.values(ENRICHMENT_PLUGINS).map((plugin) => [plugin.descriptor.id, plugin.run(context)]));

  /** The classes stored at indexing, or (for media indexed before they were kept) one forward pass now. */
  async function withClasses(version: DatasetVersion, batch: MediaToEnrich[]): Promise<EnrichBatch> {
    const missing = batch.filter((media) => !media.predicted_classes);
    const computed = new Map<string, PredictedClass[]>();
    if (missing.length > 0 && encoder.hasClassifier) {
      const encoded = await encodeImageBlobs(store, encoder, missing.map((media) => media.blob_sha256));
      missing.forEach((media, i) => computed.set(media.id, encoded[i].classes));
      await savePredictedClasses(db, version.id, [...computed].map(([id, classes]) => ({ id, classes })));
    }
    return batch.map((media) => ({ ...media, classes: media.predicted_classes ?? computed.get(media.id) ?? [] }));
  }

  /**
   * Clusters every object of the version at the five thresholds over the kNN graph of their crop
   * embeddings (as images are clustered), giving each object its cluster id per threshold.
   */
  async function clusterObjects(live: Liveness, version: DatasetVersion): Promise<void> {
    const ids = await versionObjectIds(db, version.id);
    const indexOf = new Map(ids.map((id, i) => [id, i]));
    const results = await vectorNeighbours(live, vectors, objectCollection(version.vector_space_id), ids, GRAPH_K + 1);
    // Hits the version does not hold (vectors are shared with other versions) are not neighbours.
    const edges = results.flatMap((hits, a) =>
      hits.flatMap((hit) => {
        const b = indexOf.get(hit.id);
        return b === undefined || b === a ? [] : [{ a, b, similarity: 1 - hit.distance }];
      }),
    );
    const levels = clusterByThresholds(ids.length, edges);
    const rows = ids.map((id, i) => ({ id, clusters: levels.map((labels, threshold) => contentUuid(`${version.id}/objects/${threshold}/${ids[labels[i]]}`)) }));
    await setObjectClusters(db, version.id, rows);
  }

  /** Runs the version's models, in order, over its media they have not run on yet (of `range` only, when given). */
  async function enrichPending(
    live: Liveness,
    version: DatasetVersion,
    reporter: (type: EnrichmentType, position: number, count: number) => ProgressReporter,
    range?: IdRange,
  ): Promise<Partial<Record<EnrichmentType, number>>> {
    const types = APPLY_ORDER.filter((type) => version.enrichment_models[type] !== undefined);
    const enriched: Partial<Record<EnrichmentType, number>> = {};
    for (const [position, type] of types.entries()) {
      const model = version.enrichment_models[type];
      const step = runs.get(model);
      if (!step) throw ApplicationFailure.create({ type: 'ModelUnavailable', message: `This worker cannot run ${model} (${type})`, nonRetryable: true });
      await step.prepare?.(version);
      const total = await countMediaToEnrich(db, version.id, type, range);
      const report = reporter(type, position, types.length);
      let done = 0;
      for (;;) {
        heartbeatOrStop(live, { type, done });
        const batch = await nextMediaToEnrich(db, version.id, type, ENRICH_BATCH, range);
        if (batch.length === 0) break;
        const prepared = await withClasses(version, batch);
        const output = await step.infer(version, prepared);
        await writeEnrichedBatch(db, { version, type, run: step, batch: prepared, output });
        done += batch.length;
        await report(done, total);
      }
      enriched[type] = done;
    }
    return enriched;
  }

  return {
    /** Runs the version's models over one chunk of its media (a MEDIA_CHUNKS step of an enrichment). */
    async enrichChunk(live: Liveness, step: ChunkStep): Promise<{ enriched: Partial<Record<EnrichmentType, number>> }> {
      const version = await headVersion(db, step.datasetId);
      const reporter = (type: EnrichmentType, position: number, count: number) =>
        createChunkProgressReporter(db, step, 'enrich', { from: position / count, to: (position + 1) / count }, `Enriching: ${type}`);
      return { enriched: await enrichPending(live, version, reporter, step.chunk) };
    },

    /**
     * Runs the version's models over whatever media they have not run on (the new media of add_media; after an
     * enrichment's chunks, nothing), then clusters the version's objects if new ones came.
     */
    async enrichDatasetMedia(live: Liveness, ref: TaskRef): Promise<{ enriched: Partial<Record<EnrichmentType, number>> }> {
      const version = await headVersion(db, ref.datasetId);
      const reporter = (type: EnrichmentType, position: number, count: number) =>
        createProgressReporter(db, ref, 'enrich', `Enriching: ${type} ${position + 1}/${count}`);
      const enriched = await enrichPending(live, version, reporter);
      // New objects (all of them after a copy, a batch's after add_media) re-cluster the version's objects;
      // asking the rows also finishes the clustering of a run interrupted before it.
      if (version.enrichment_models.OBJECT_DETECTION !== undefined && (await hasUnclusteredObjects(db, version.id))) await clusterObjects(live, version);
      return { enriched };
    },
  };
}
