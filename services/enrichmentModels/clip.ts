import { MODEL_IDS } from '../../lib/enrichment/catalog';
import { blobKey } from '../../lib/storage/objectStore';
import { clipCollection } from '../../lib/vectors/vectorStore';
import { enrichmentPlugin } from './plugin';

/** A site's own CLIP towers: images embedded into the space text queries are embedded in. Writes vectors only. */
export const clip = enrichmentPlugin({
  descriptor: {
    id: MODEL_IDS.clip,
    name: 'CLIP (your own ONNX weights)',
    type: 'MULTIMODEL_IMAGE_ENCODING',
    vendor: 'The CLIP vision and text towers placed in MODELS_DIR with clip.json',
    description: 'True text-to-image search: images and queries are embedded by the CLIP towers into one space.',
    dependencies: null,
  },
  available: (installed) => installed.clip,
  run: ({ store, vectors, clip: loadClip }) => ({
    async prepare(version) {
      const model = await loadClip();
      await vectors.ensureCollection(clipCollection(version.vector_space_id, model.modelId), model.dim);
    },
    async infer(version, batch) {
      const model = await loadClip();
      const images = await Promise.all(batch.map((media) => store.get(blobKey(media.blob_sha256))));
      const embedded = await model.encodeImages(images);
      await vectors.upsert(clipCollection(version.vector_space_id, model.modelId), batch.map((media, i) => ({ id: media.id, vector: embedded[i] })));
    },
    write: async () => {},
  }),
});
