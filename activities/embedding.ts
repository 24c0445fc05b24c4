import { Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import type { ImageEncoder } from '../lib/ml/imageEncoder';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { captionCollection, datasetCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { createProgressReporter, type TaskRef } from './progress';

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
  return {
    /** Embeds captions that changed since they were last embedded, for semantic search. */
    async embedCaptions(ref: { datasetId: string }): Promise<{ embedded: number }> {
      const context = Context.current();
      const collection = captionCollection(ref.datasetId);
      await vectors.ensureCollection(collection, textEncoder.dim);
      let embedded = 0;
      for (;;) {
        context.heartbeat({ embedded });
        const batch: Array<{ id: string; caption: string }> = await db('media')
          .where({ dataset_id: ref.datasetId, caption_embedded: false })
          .whereNotNull('caption')
          .orderBy('id')
          .limit(64)
          .select('id', 'caption');
        if (batch.length === 0) return { embedded };
        const vectorsOf = await textEncoder.encode(batch.map((media) => media.caption));
        await vectors.upsert(collection, batch.map((media, i) => ({ id: media.id, vector: vectorsOf[i] })));
        // Only rows whose caption is still the embedded one are marked, so a concurrent change is not lost.
        for (const media of batch) await db('media').where({ id: media.id, caption: media.caption }).update({ caption_embedded: true });
        embedded += batch.length;
      }
    },

    async embedDatasetMedia(ref: TaskRef): Promise<{ embedded: number }> {
      const context = Context.current();
      const collection = datasetCollection(ref.datasetId);
      await vectors.ensureCollection(collection, encoder.dim);
      // Made here, with the image collection, so searches never have to create it.
      await vectors.ensureCollection(captionCollection(ref.datasetId), textEncoder.dim);
      const pending = () =>
        db('media')
          .where({ dataset_id: ref.datasetId, embedded: false })
          .whereIn('kind', ['IMAGE', 'VIDEO_FRAME'])
          .whereNotNull('thumb_sha256');
      const [{ total }] = await pending().clone().count({ total: '*' });
      const report = createProgressReporter(db, ref, 'embed', 'Embedding');
      let embedded = 0;
      for (;;) {
        context.heartbeat({ embedded });
        if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
        const batch: Array<{ id: string; blob_sha256: string }> = await pending()
          .clone()
          .orderBy('id')
          .limit(EMBED_BATCH)
          .select('id', 'blob_sha256');
        if (batch.length === 0) break;
        const images = await Promise.all(batch.map((media) => store.get(blobKey(media.blob_sha256))));
        const embeddings = await encoder.encode(images);
        await vectors.upsert(collection, batch.map((media, i) => ({ id: media.id, vector: embeddings[i] })));
        await db('media').whereIn('id', batch.map((media) => media.id)).update({ embedded: true });
        embedded += batch.length;
        await report(embedded, Number(total));
      }
      await report(embedded, Number(total), true);
      return { embedded };
    },
  };
}
