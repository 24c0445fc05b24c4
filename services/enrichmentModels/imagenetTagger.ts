import { replaceLabels } from '../../db/repositories/enrichment';
import { MODEL_IDS, TAGGING_SOURCE } from '../../lib/enrichment/catalog';
import { tagsFromClasses } from '../../lib/enrichment/describe';
import { enrichmentPlugin } from './plugin';

/** Labels from the image encoder's own ImageNet head, read at indexing: tagging costs no second pass. */
export const imagenetTagger = enrichmentPlugin({
  descriptor: {
    id: MODEL_IDS.tagger,
    name: 'ImageNet tagger (EfficientNet-Lite0)',
    type: 'IMAGE_TAGGING',
    vendor: 'EfficientNet-Lite0 ImageNet-1k weights (Apache-2.0), run by this service',
    description:
      'Labels each image with the ImageNet-1k classes of the image encoder\'s own classifier head (read in the indexing pass, so tagging costs no second pass) and with their everyday group ("tabby" is also "cat"), each with its probability.',
    dependencies: null,
  },
  available: (installed) => installed.imageClassifier,
  run: () => ({
    infer: async (_version, batch) => batch.flatMap((media) => tagsFromClasses(media.classes).map((tag) => ({ mediaId: media.id, ...tag }))),
    write: (trx, version, batch, labels) => replaceLabels(trx, version.id, TAGGING_SOURCE, batch.map((media) => media.id), labels),
  }),
});
