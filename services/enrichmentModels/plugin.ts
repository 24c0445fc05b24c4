import type { Db } from '../../db/connection';
import type { MediaToEnrich } from '../../db/repositories/enrichment';
import type { DatasetVersion } from '../../db/repositories/versions';
import type { EnrichmentModel, ModelAvailability } from '../../lib/enrichment/catalog';
import type { ClipModel } from '../../lib/ml/clip';
import type { ImageEncoder, PredictedClass } from '../../lib/ml/imageEncoder';
import type { ObjectDetector } from '../../lib/ml/objectDetector';
import type { TextEncoder } from '../../lib/ml/textEncoder';
import type { VisionCaptioner } from '../../lib/ml/visionCaptioner';
import type { ObjectStore } from '../../lib/storage/objectStore';
import type { VectorStore } from '../../lib/vectors/vectorStore';

/** A batch of media to enrich, each with the image encoder's classes (stored at indexing, or computed for the batch). */
export type EnrichBatch = Array<MediaToEnrich & { classes: PredictedClass[] }>;

/** What a worker offers the models it runs. */
export interface ModelContext {
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
}

/**
 * One model's run over a version: `prepare` once before its batches; then per batch `infer` runs the
 * model with no transaction open (it may read, and writes vectors first: a row only refers to a vector
 * that exists) and `write` stores its output in the transaction that marks the batch done.
 */
export interface ModelRun<Output> {
  prepare?(version: DatasetVersion): Promise<void>;
  infer(version: DatasetVersion, batch: EnrichBatch): Promise<Output>;
  write(trx: Db, version: DatasetVersion, batch: EnrichBatch, output: Output): Promise<void>;
}

/**
 * An enrichment model, whole in one file: what `list_models` says of it, when this install can run it,
 * and its run (made once per worker from the worker's models and stores).
 */
export interface EnrichmentPlugin<Output = unknown> {
  descriptor: Omit<EnrichmentModel, 'status'>;
  available(installed: ModelAvailability): boolean;
  run(context: ModelContext): ModelRun<Output>;
}

/** Keeps a plugin's output type checked between its `infer` and `write` while the registry holds plugins of any output. */
export const enrichmentPlugin = <Output>(plugin: EnrichmentPlugin<Output>): EnrichmentPlugin => plugin as EnrichmentPlugin;
