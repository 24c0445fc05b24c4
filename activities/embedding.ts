import { Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { countPendingEmbedding, markCaptionsEmbedded, markEmbedded, nextCaptionsToEmbed, nextPendingEmbedding } from '../db/repositories/media';
import type { IdRange } from '../db/repositories/chunks';
import { headVersion, type DatasetVersion } from '../db/repositories/versions';
import type { ImageEncoder } from '../lib/ml/imageEncoder';
import { modelInputKey, type ObjectStore } from '../lib/storage/objectStore';
import { encodeImageBlobs } from '../services/imageEncoding';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { captionCollection, imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import type { ChunkStep } from '../workflows/contracts';
import { createChunkProgressReporter, createProgressReporter, type ProgressReporter, type TaskRef } from '../services/taskProgress';

const EMBED_BATCH = 16;

/**
 * Embeds every decodable image and video frame of a dataset that has no vector yet and writes the
 * vectors to the dataset's collection. Runs on the inference queue. Progress lives in the database
 * (`media.embedded`), so a retried or resumed run continues where the last one stopped.
 */
export function createEmbeddingActivities(deps: {
  db: Db;
  store: ObjectStore;
  vectors: VectorStore;
  encoder: ImageEncoder;
  textEncoder: TextEncoder;
}) {
  const { db, store, vectors, encoder, textEncoder } = deps;
  /** Embeds the version's captions that changed since they were last embedded, under their content key. */
  async function embedPendingCaptions(version: DatasetVersion): Promise<number> {
    const context = Context.current();
    const collection = captionCollection(version.vector_space_id);
    await vectors.ensureCollection(collection, textEncoder.dim);
    let embedded = 0;
    for (;;) {
      context.heartbeat({ captions: embedded });
      const batch = await nextCaptionsToEmbed(db, version.id, 64);
      if (batch.length === 0) return embedded;
      const vectorsOf = await textEncoder.encode(batch.map((row) => row.caption));
      await vectors.upsert(collection, batch.map((row, i) => ({ id: row.caption_key, vector: vectorsOf[i] })));
      await markCaptionsEmbedded(db, version.id, batch.map((row) => row.caption));
      embedded += batch.length;
    }
  }

  /** Embeds the version's images and frames without a vector (of the files in `range` only, when given). */
  async function embedPendingMedia(version: DatasetVersion, report: ProgressReporter, range?: IdRange): Promise<number> {
    const context = Context.current();
    const collection = imageCollection(version.vector_space_id);
    await vectors.ensureCollection(collection, encoder.dim);
    const total = await countPendingEmbedding(db, version.id, range);
    let embedded = 0;
    for (;;) {
      context.heartbeat({ embedded });
      if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
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

  return {
    /** Embeds captions that changed since they were last embedded, for semantic search. */
    async embedCaptions(ref: { datasetId: string }): Promise<{ embedded: number }> {
      return { embedded: await embedPendingCaptions(await headVersion(db, ref.datasetId)) };
    },

    /** Embeds the images and frames of one chunk's files (the second half of the chunk's work). */
    async embedChunk(step: ChunkStep): Promise<{ embedded: number }> {
      const version = await headVersion(db, step.datasetId);
      const report = createChunkProgressReporter(db, step, 'index', { from: 0.5, to: 1 }, 'Embedding');
      return { embedded: await embedPendingMedia(version, report, step.chunk) };
    },

    /** Embeds whatever media of the dataset still has no vector (a sweep after the chunks), then pending captions. */
    async embedDatasetMedia(ref: TaskRef): Promise<{ embedded: number }> {
      const version = await headVersion(db, ref.datasetId);
      const embedded = await embedPendingMedia(version, createProgressReporter(db, ref, 'index', 'Embedding'));
      // Captions waiting for a vector (set by an import whose embedding failed, or by an upgrade) come along.
      // This also makes the caption collection, so searches never have to create it.
      await embedPendingCaptions(version);
      return { embedded };
    },
  };
}
