import type { Db } from '../db/connection';
import type { IdRange } from '../db/repositories/chunks';
import { countPendingEmbedding, markCaptionsEmbedded, markEmbedded, nextCaptionsToEmbed, nextPendingEmbedding } from '../db/repositories/media';
import { headVersion, type DatasetVersion } from '../db/repositories/versions';
import type { ImageEncoder } from '../lib/ml/imageEncoder';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { modelInputKey, type ObjectStore } from '../lib/storage/objectStore';
import { captionCollection, imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import type { ChunkStep } from '../workflows/contracts';
import { encodeImageBlobs } from './imageEncoding';
import { heartbeatOrStop, type Liveness } from './taskLiveness';
import { createChunkProgressReporter, createProgressReporter, type ProgressReporter, type TaskRef } from './taskProgress';

const EMBED_BATCH = 16;

/**
 * Embedding, the second half of indexing: every decodable image and video frame of a dataset that has no vector yet
 * is embedded and written to the dataset's collection, and changed captions to theirs. Progress lives in the
 * database (`media.embedded`), so a retried or resumed run continues where the last one stopped.
 */
export interface EmbeddingDeps {
  db: Db;
  store: ObjectStore;
  vectors: VectorStore;
  encoder: ImageEncoder;
  textEncoder: TextEncoder;
}

/** Embeds captions that changed since they were last embedded, for semantic search. */
export async function embedCaptions(deps: EmbeddingDeps, live: Liveness, ref: { datasetId: string }): Promise<{ embedded: number }> {
  return { embedded: await embedPendingCaptions(deps, live, await headVersion(deps.db, ref.datasetId)) };
}

/** Embeds the images and frames of one chunk's files (the second half of the chunk's work). */
export async function embedChunk(deps: EmbeddingDeps, live: Liveness, step: ChunkStep): Promise<{ embedded: number }> {
  const version = await headVersion(deps.db, step.datasetId);
  const report = createChunkProgressReporter(deps.db, step, 'index', { from: 0.5, to: 1 }, 'Embedding');
  return { embedded: await embedPendingMedia(deps, live, version, report, step.chunk) };
}

/** Embeds whatever media of the dataset still has no vector (a sweep after the chunks), then pending captions. */
export async function embedDatasetMedia(deps: EmbeddingDeps, live: Liveness, ref: TaskRef): Promise<{ embedded: number }> {
  const version = await headVersion(deps.db, ref.datasetId);
  const embedded = await embedPendingMedia(deps, live, version, createProgressReporter(deps.db, ref, 'index', 'Embedding'));
  // Captions waiting for a vector (set by an import whose embedding failed, or by an upgrade) come along.
  // This also makes the caption collection, so searches never have to create it.
  await embedPendingCaptions(deps, live, version);
  return { embedded };
}

/** Embeds the version's captions that changed since they were last embedded, under their content key. */
async function embedPendingCaptions(deps: EmbeddingDeps, live: Liveness, version: DatasetVersion): Promise<number> {
  const { db, vectors, textEncoder } = deps;
  const collection = captionCollection(version.vector_space_id);
  await vectors.ensureCollection(collection, textEncoder.dim);
  let embedded = 0;
  for (;;) {
    live.heartbeat({ captions: embedded });
    const batch = await nextCaptionsToEmbed(db, version.id, 64);
    if (batch.length === 0) return embedded;
    const vectorsOf = await textEncoder.encode(batch.map((row) => row.caption));
    await vectors.upsert(collection, batch.map((row, i) => ({ id: row.caption_key, vector: vectorsOf[i] })));
    await markCaptionsEmbedded(db, version.id, batch.map((row) => row.caption));
    embedded += batch.length;
  }
}

/** Embeds the version's images and frames without a vector (of the files in `range` only, when given). */
async function embedPendingMedia(deps: EmbeddingDeps, live: Liveness, version: DatasetVersion, report: ProgressReporter, range?: IdRange): Promise<number> {
  const { db, store, vectors, encoder } = deps;
  const collection = imageCollection(version.vector_space_id);
  await vectors.ensureCollection(collection, encoder.dim);
  const total = await countPendingEmbedding(db, version.id, range);
  let embedded = 0;
  for (;;) {
    heartbeatOrStop(live, { embedded });
    const batch = await nextPendingEmbedding(db, version.id, EMBED_BATCH, range);
    if (batch.length === 0) break;
    const encoded = await encodeImageBlobs(store, encoder, batch.map((media) => media.blob_sha256));
    await vectors.upsert(collection, batch.map((media, i) => ({ id: media.id, vector: encoded[i].vector })));
    const predictedClasses = (i: number) => (encoder.hasClassifier ? encoded[i].classes : null);
    await markEmbedded(db, version.id, batch.map((media, i) => ({ id: media.id, predictedClasses: predictedClasses(i) })));
    // Model inputs are only kept from the ingest to here; a later re-embedding decodes the original.
    await Promise.all(batch.map((media) => store.delete(modelInputKey(media.blob_sha256, encoder.input))));
    embedded += batch.length;
    await report(embedded, total);
  }
  await report(embedded, total, true);
  return embedded;
}
