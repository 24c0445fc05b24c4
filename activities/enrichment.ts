import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { requireDatasetTransition, updateDatasetCounts } from '../db/repositories/datasets';
import {
  countMediaToEnrich,
  hasUnclusteredObjects,
  markEnriched,
  nextMediaToEnrich,
  objectsOf,
  replaceLabels,
  replaceObjects,
  resetEnriched,
  savePredictedClasses,
  setCaptions,
  setConceptKeys,
  setEnrichmentModels,
  setObjectCaptions,
  setObjectClusters,
  versionObjectIds,
  type MediaToEnrich,
  type ObjectRow,
} from '../db/repositories/enrichment';
import { mediaCounts } from '../db/repositories/media';
import { updateTaskProgress } from '../db/repositories/tasks';
import { dropUnusedVersions, findVersion, headVersion, setHeadVersion, type DatasetVersion } from '../db/repositories/versions';
import { releaseTransition, TRANSITIONS } from '../lib/datasetStates';
import { clusterByThresholds } from '../lib/clustering/clusterByThresholds';
import { APPLY_ORDER, DETECTION_SOURCE, MODEL_IDS, TAGGING_SOURCE, type EnrichmentType } from '../lib/enrichment/catalog';
import { conceptKey, conceptTerms, conceptVector } from '../lib/enrichment/concepts';
import { imageCaption, objectCaption, tagsFromClasses } from '../lib/enrichment/describe';
import { cropToBoxes } from '../lib/media/crop';
import { contentTypeOf } from '../lib/media/mediaTypes';
import type { ClipModel } from '../lib/ml/clip';
import type { ObjectDetector } from '../lib/ml/objectDetector';
import { VisionCaptionError, type VisionCaptioner } from '../lib/ml/visionCaptioner';
import { contentUuid } from '../lib/sha256';
import type { EncodedImage, ImageEncoder, PredictedClass } from '../lib/ml/imageEncoder';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import { clipCollection, conceptCollection, objectCollection, type VectorStore } from '../lib/vectors/vectorStore';
import type { EnrichmentInput } from '../workflows/contracts';
import { TASK_TYPE_REGISTRY, type Ending } from '../services/taskTypes';
import { GRAPH_K } from './analysis';
import type { IdRange } from '../db/repositories/chunks';
import { encodeImageBlobs } from './embedding';
import type { ChunkStep } from '../workflows/contracts';
import { createChunkProgressReporter, createProgressReporter, type ProgressReporter, type TaskRef } from './progress';
import { vectorNeighbours } from './vectorNeighbours';

const ENRICH_BATCH = 16;



/** The steps of an ENRICHMENT around its model runs, on the main queue. */
export function createEnrichmentActivities(deps: { db: Db }) {
  const { db } = deps;
  return {
    async beginEnrichment(input: EnrichmentInput): Promise<void> {
      await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Copying the source dataset', progressPercentage: 5, phase: 'copy' });
    },

    /** The copy becomes the new dataset's head, recording every enrichment applied to it (the source's and this one's). */
    async adoptEnrichedCopy(input: EnrichmentInput): Promise<void> {
      const source = await findVersion(db, input.sourceVersionId);
      const replaced = Object.keys(input.enrichmentModels).filter((type) => source?.enrichment_models[type] !== input.enrichmentModels[type]);
      await db.transaction(async (trx) => {
        await setHeadVersion(trx, input.datasetId, input.versionId);
        await setEnrichmentModels(trx, input.versionId, input.enrichmentModels);
        await resetEnriched(trx, input.versionId, replaced);
      });
      await dropUnusedVersions(db, input.datasetId);
    },

    async commitEnrichment(input: EnrichmentInput): Promise<void> {
      await db.transaction(async (trx) => {
        await updateDatasetCounts(trx, input.datasetId, await mediaCounts(trx, input.versionId));
        await requireDatasetTransition(trx, input.datasetId, TRANSITIONS.enrichmentCommitted, { progress: 100 });
        await requireDatasetTransition(trx, input.sourceDatasetId, releaseTransition('enrich', input.sourcePreviousStatus));
        await updateTaskProgress(trx, input.taskId, { status: 'COMPLETED', statusMessage: 'Enriched dataset ready', progressPercentage: 100, phase: 'done' });
      });
    },

    async failEnrichment(input: EnrichmentInput & Ending): Promise<void> {
      await TASK_TYPE_REGISTRY.ENRICHMENT.endUnfinished(db, input, input);
    },
  };
}

type EnrichBatch = Array<MediaToEnrich & { classes: PredictedClass[] }>;

/**
 * What one model does to a batch of media: `infer` runs the model with no transaction open (it may
 * read, and writes vectors first: a row only refers to a vector that exists); `write` stores its
 * output in the transaction that marks the batch done.
 */
interface BatchStep<Output> {
  infer(version: DatasetVersion, batch: EnrichBatch): Promise<Output>;
  write(trx: Db, version: DatasetVersion, batch: EnrichBatch, output: Output): Promise<void>;
}

const batchStep = <Output>(step: BatchStep<Output>): BatchStep<unknown> => step as BatchStep<unknown>;

/**
 * Runs the models of the enrichment recorded on a dataset's head version over every media item they
 * have not run on yet (all of them after a copy; the new ones after add_media). Each batch's outputs
 * and its "done" mark are one transaction, so a retried activity resumes without repeating work.
 * Runs on the inference queue.
 */
export function createEnrichmentInferenceActivities(deps: {
  db: Db;
  store: ObjectStore;
  vectors: VectorStore;
  encoder: ImageEncoder;
  textEncoder: TextEncoder;
  /** Loaded on first use: workers that never detect objects never hold the detector. */
  detector: () => Promise<ObjectDetector>;
  /** A site's own CLIP (MODELS_DIR/clip.json), loaded on first use. */
  clip: () => Promise<ClipModel>;
  /** The OpenAI-compatible vision endpoint, when VISION_CAPTION_URL is set. */
  visionCaptioner?: VisionCaptioner;
}) {
  const { db, store, vectors, encoder, textEncoder } = deps;

  /** Detects the objects of a batch, then embeds and classifies each object's crop with the image encoder. */
  async function detectObjects(batch: MediaToEnrich[]): Promise<Array<Omit<ObjectRow, 'caption'> & { vector: Float32Array }>> {
    const detector = await deps.detector();
    const images = await Promise.all(batch.map((media) => store.get(blobKey(media.blob_sha256))));
    const found = await detector.detect(images);
    const objects = batch.flatMap((media, i) =>
      found[i].map((detection, j) => ({ media, detection, id: contentUuid(`${media.id}/${detector.modelId}/${j}`) })),
    );
    const crops = (await Promise.all(batch.map((_, i) => cropToBoxes(images[i], found[i].map((detection) => detection.box))))).flat();
    const encoded: EncodedImage[] = [];
    for (let i = 0; i < crops.length; i += ENRICH_BATCH) encoded.push(...(await encoder.encodeAndClassify(crops.slice(i, i + ENRICH_BATCH))));
    return objects.map(({ media, detection, id }, k) => ({
      id,
      media_id: media.id,
      label: detection.label,
      confidence: detection.confidence,
      box_x: detection.box.x,
      box_y: detection.box.y,
      box_width: detection.box.width,
      box_height: detection.box.height,
      predicted_classes: encoded[k].classes,
      vector: encoded[k].vector,
    }));
  }
  /** Text vectors of concept terms: a bounded vocabulary (ImageNet and COCO names), embedded once per worker. */
  const termVectors = new Map<string, Float32Array>();

  async function conceptVectors(version: DatasetVersion, batch: EnrichBatch) {
    const objects = await objectsOf(db, version.id, batch.map((media) => media.id));
    const terms = batch.map((media) => conceptTerms(media.classes, objects.filter((object) => object.media_id === media.id)));
    const missing = [...new Set(terms.flat().map((term) => term.text))].filter((text) => !termVectors.has(text));
    if (missing.length > 0) (await textEncoder.encode(missing)).forEach((vector, i) => termVectors.set(missing[i], vector));
    return batch.flatMap((media, i) =>
      terms[i].length === 0 ? [] : [{ mediaId: media.id, key: conceptKey(terms[i]), vector: conceptVector(terms[i], (text) => termVectors.get(text)!) }],
    );
  }

  /** The classes stored at indexing, or (for media indexed before they were kept) one forward pass now. */
  async function withClasses(version: DatasetVersion, batch: MediaToEnrich[]): Promise<Array<MediaToEnrich & { classes: PredictedClass[] }>> {
    const missing = batch.filter((media) => !media.predicted_classes);
    const computed = new Map<string, PredictedClass[]>();
    if (missing.length > 0 && encoder.hasClassifier) {
      const encoded = await encodeImageBlobs(store, encoder, missing.map((media) => media.blob_sha256));
      missing.forEach((media, i) => computed.set(media.id, encoded[i].classes));
      await savePredictedClasses(db, version.id, [...computed].map(([id, classes]) => ({ id, classes })));
    }
    return batch.map((media) => ({ ...media, classes: media.predicted_classes ?? computed.get(media.id) ?? [] }));
  }

  /** Work a model does once per run, before its batches. */
  const prepare: Partial<Record<string, (version: DatasetVersion) => Promise<void>>> = {
    [MODEL_IDS.conceptEncoder]: (version) => vectors.ensureCollection(conceptCollection(version.vector_space_id), textEncoder.dim),
    [MODEL_IDS.detector]: (version) => vectors.ensureCollection(objectCollection(version.vector_space_id), encoder.dim),
    [MODEL_IDS.clip]: async (version) => {
      const clip = await deps.clip();
      await vectors.ensureCollection(clipCollection(version.vector_space_id, clip.modelId), clip.dim);
    },
  };

  /** What each model does to a batch, by model id (a type's models differ: a template or an endpoint writes the captions). */
  const steps: Partial<Record<string, BatchStep<unknown>>> = {
    [MODEL_IDS.tagger]: batchStep({
      infer: async (_version, batch) => batch.flatMap((media) => tagsFromClasses(media.classes).map((tag) => ({ mediaId: media.id, ...tag }))),
      write: (trx, version, batch, labels) => replaceLabels(trx, version.id, TAGGING_SOURCE, batch.map((media) => media.id), labels),
    }),
    [MODEL_IDS.detector]: batchStep({
      async infer(version, batch) {
        const objects = await detectObjects(batch);
        await vectors.upsert(objectCollection(version.vector_space_id), objects.map((object) => ({ id: object.id, vector: object.vector })));
        return objects.map(({ vector: _vector, ...object }) => object);
      },
      async write(trx, version, batch, objects) {
        const ids = batch.map((media) => media.id);
        await replaceObjects(trx, version.id, ids, objects);
        // Each detected category is also a label of its image (at its best confidence), for the labels filter.
        const best = new Map<string, { mediaId: string; label: string; confidence: number }>();
        for (const object of objects) {
          const key = `${object.media_id}/${object.label}`;
          if ((best.get(key)?.confidence ?? -1) < object.confidence) best.set(key, { mediaId: object.media_id, label: object.label, confidence: object.confidence });
        }
        await replaceLabels(trx, version.id, DETECTION_SOURCE, ids, [...best.values()]);
      },
    }),
    [MODEL_IDS.objectCaptioner]: batchStep({
      async infer(version, batch) {
        const objects = await objectsOf(db, version.id, batch.map((media) => media.id));
        return objects.map((object) => ({ id: object.id, caption: objectCaption(object.label, object.predicted_classes) }));
      },
      write: (trx, version, _batch, captions) => setObjectCaptions(trx, version.id, captions),
    }),
    [MODEL_IDS.imageCaptioner]: batchStep({
      async infer(version, batch) {
        const objects = await objectsOf(db, version.id, batch.map((media) => media.id));
        return batch.map((media) => ({ id: media.id, caption: imageCaption(media.classes, objects.filter((object) => object.media_id === media.id)) }));
      },
      write: (trx, version, _batch, captions) => setCaptions(trx, version.id, captions),
    }),
    [MODEL_IDS.visionCaptioner]: batchStep({
      async infer(_version, batch) {
        const captioner = deps.visionCaptioner;
        if (!captioner) throw ApplicationFailure.create({ type: 'ModelUnavailable', message: 'VISION_CAPTION_URL is not set on this worker', nonRetryable: true });
        const captions = [];
        for (const media of batch) {
          try {
            captions.push({ id: media.id, caption: await captioner.caption(await store.get(blobKey(media.blob_sha256)), contentTypeOf(media.file_name, media.kind)) });
          } catch (error) {
            // A wrong key or model name fails the task at once; an overloaded or unreachable endpoint is retried.
            if (error instanceof VisionCaptionError && !error.retryable) {
              throw ApplicationFailure.create({ type: 'VisionCaptionRefused', message: error.message, nonRetryable: true });
            }
            throw error;
          }
        }
        return captions;
      },
      write: (trx, version, _batch, captions) => setCaptions(trx, version.id, captions),
    }),
    [MODEL_IDS.clip]: batchStep({
      async infer(version, batch) {
        const clip = await deps.clip();
        const images = await Promise.all(batch.map((media) => store.get(blobKey(media.blob_sha256))));
        const embedded = await clip.encodeImages(images);
        await vectors.upsert(clipCollection(version.vector_space_id, clip.modelId), batch.map((media, i) => ({ id: media.id, vector: embedded[i] })));
      },
      write: async () => {},
    }),
    [MODEL_IDS.conceptEncoder]: batchStep({
      async infer(version, batch) {
        const concepts = await conceptVectors(version, batch);
        await vectors.upsert(conceptCollection(version.vector_space_id), concepts.map((concept) => ({ id: concept.key, vector: concept.vector })));
        return concepts.map((concept) => ({ id: concept.mediaId, key: concept.key }));
      },
      write: (trx, version, _batch, keys) => setConceptKeys(trx, version.id, keys),
    }),
  };

  /**
   * Clusters every object of the version at the five thresholds over the kNN graph of their crop
   * embeddings (as images are clustered), giving each object its cluster id per threshold.
   */
  async function clusterObjects(version: DatasetVersion): Promise<void> {
    const ids = await versionObjectIds(db, version.id);
    const indexOf = new Map(ids.map((id, i) => [id, i]));
    const results = await vectorNeighbours(vectors, objectCollection(version.vector_space_id), ids, GRAPH_K + 1);
    // Hits the version does not hold (vectors are shared with other versions) are not neighbours.
    const edges = results.flatMap((hits, a) =>
      hits.flatMap((hit) => {
        const b = indexOf.get(hit.id);
        return b === undefined || b === a ? [] : [{ a, b, similarity: 1 - hit.distance }];
      }),
    );
    const levels = clusterByThresholds(ids.length, edges);
    const rows = ids.map((id, i) => ({ id, clusters: levels.map((labels, threshold) => contentUuid(`${version.id}/objects/${threshold}/${ids[labels[i]]}`)) }));
    await db.transaction(async (trx) => {
      for (let start = 0; start < rows.length; start += 1000) await setObjectClusters(trx, version.id, rows.slice(start, start + 1000));
    });
  }

  /** Runs the version's models, in order, over its media they have not run on yet (of `range` only, when given). */
  async function enrichPending(
    version: DatasetVersion,
    reporter: (type: EnrichmentType, position: number, count: number) => ProgressReporter,
    range?: IdRange,
  ): Promise<Partial<Record<EnrichmentType, number>>> {
    const context = Context.current();
    const types = APPLY_ORDER.filter((type) => version.enrichment_models[type] !== undefined);
    const enriched: Partial<Record<EnrichmentType, number>> = {};
    for (const [position, type] of types.entries()) {
      const model = version.enrichment_models[type];
      const step = steps[model];
      if (!step) throw ApplicationFailure.create({ type: 'ModelUnavailable', message: `This worker cannot run ${model} (${type})`, nonRetryable: true });
      await prepare[model]?.(version);
      const total = await countMediaToEnrich(db, version.id, type, range);
      const report = reporter(type, position, types.length);
      let done = 0;
      for (;;) {
        context.heartbeat({ type, done });
        if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
        const batch = await nextMediaToEnrich(db, version.id, type, ENRICH_BATCH, range);
        if (batch.length === 0) break;
        const prepared = await withClasses(version, batch);
        const output = await step.infer(version, prepared);
        await db.transaction(async (trx) => {
          await step.write(trx, version, prepared, output);
          await markEnriched(trx, version.id, type, batch.map((media) => media.id));
        });
        done += batch.length;
        await report(done, total);
      }
      enriched[type] = done;
    }
    return enriched;
  }

  return {
    /** Runs the version's models over one chunk of its media (a MEDIA_CHUNKS step of an enrichment). */
    async enrichChunk(step: ChunkStep): Promise<{ enriched: Partial<Record<EnrichmentType, number>> }> {
      const version = await headVersion(db, step.datasetId);
      const reporter = (type: EnrichmentType, position: number, count: number) =>
        createChunkProgressReporter(db, step, 'enrich', { from: position / count, to: (position + 1) / count }, `Enriching: ${type}`);
      return { enriched: await enrichPending(version, reporter, step.chunk) };
    },

    /**
     * Runs the version's models over whatever media they have not run on (the new media of add_media; after an
     * enrichment's chunks, nothing), then clusters the version's objects if new ones came.
     */
    async enrichDatasetMedia(ref: TaskRef): Promise<{ enriched: Partial<Record<EnrichmentType, number>> }> {
      const version = await headVersion(db, ref.datasetId);
      const reporter = (type: EnrichmentType, position: number, count: number) =>
        createProgressReporter(db, ref, 'enrich', `Enriching: ${type} ${position + 1}/${count}`);
      const enriched = await enrichPending(version, reporter);
      // New objects (all of them after a copy, a batch's after add_media) re-cluster the version's objects;
      // asking the rows also finishes the clustering of a run interrupted before it.
      if (version.enrichment_models.OBJECT_DETECTION !== undefined && (await hasUnclusteredObjects(db, version.id))) await clusterObjects(version);
      return { enriched };
    },
  };
}
