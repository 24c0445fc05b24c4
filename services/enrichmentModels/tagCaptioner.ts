import { objectsOf, setCaptions } from '../../db/repositories/enrichment';
import { MODEL_IDS } from '../../lib/enrichment/catalog';
import { imageCaption } from '../../lib/enrichment/describe';
import { enrichmentPlugin } from './plugin';

/** Image captions from a template filled with the detected objects and the ImageNet classes. */
export const tagCaptioner = enrichmentPlugin({
  descriptor: {
    id: MODEL_IDS.imageCaptioner,
    name: 'Tag and object captioner',
    type: 'CAPTION_IMAGES',
    vendor: 'This service',
    description:
      'Writes a caption for each image from what the real models found: the detected objects with their counts when object detection was applied ("a photo of 2 people and a kite") and the most probable ImageNet classes ("a photo of an Egyptian cat"). No language model: the caption is a template filled with model outputs.',
    dependencies: null,
  },
  available: (installed) => installed.imageClassifier,
  run: ({ db }) => ({
    async infer(version, batch) {
      const objects = await objectsOf(db, version.id, batch.map((media) => media.id));
      return batch.map((media) => ({ id: media.id, caption: imageCaption(media.classes, objects.filter((object) => object.media_id === media.id)) }));
    },
    write: (trx, version, _batch, captions) => setCaptions(trx, version.id, captions),
  }),
});
