import { objectsOf, setObjectCaptions } from '../../db/repositories/enrichment';
import { MODEL_IDS } from '../../lib/enrichment/catalog';
import { objectCaption } from '../../lib/enrichment/describe';
import { enrichmentPlugin } from './plugin';

/** Object captions assembled from the detector's label and the crop's ImageNet class. */
export const objectCaptioner = enrichmentPlugin({
  descriptor: {
    id: MODEL_IDS.objectCaptioner,
    name: 'Object captioner',
    type: 'CAPTION_OBJECTS',
    vendor: 'This service',
    description:
      'Captions each detected object from its COCO label, refined by the ImageNet class of the object\'s crop when the two agree ("a golden retriever dog"). No language model: the caption is assembled from what the detector and the classifier found.',
    dependencies: ['OBJECT_DETECTION'],
  },
  available: (installed) => installed.objectDetector && installed.imageClassifier,
  run: ({ db }) => ({
    async infer(version, batch) {
      const objects = await objectsOf(db, version.id, batch.map((media) => media.id));
      return objects.map((object) => ({ id: object.id, caption: objectCaption(object.label, object.predicted_classes) }));
    },
    write: (trx, version, _batch, captions) => setObjectCaptions(trx, version.id, captions),
  }),
});
