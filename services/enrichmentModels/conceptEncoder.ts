import { objectsOf, setConceptKeys } from '../../db/repositories/enrichment';
import { MODEL_IDS } from '../../lib/enrichment/catalog';
import { conceptKey, conceptTerms, conceptVector } from '../../lib/enrichment/concepts';
import { conceptCollection } from '../../lib/vectors/vectorStore';
import { enrichmentPlugin } from './plugin';

/** Text-to-image without CLIP: each image placed in the text encoder's space by the concepts it shows. */
export const conceptEncoder = enrichmentPlugin({
  descriptor: {
    id: MODEL_IDS.conceptEncoder,
    name: 'Concept encoder (text-to-image without CLIP)',
    type: 'MULTIMODEL_IMAGE_ENCODING',
    vendor: 'This service (EfficientNet-Lite0 classes, COCO objects, all-MiniLM-L6-v2)',
    description:
      'Places each image in the text encoder\'s space by what it shows: the probability-weighted embeddings of its predicted ImageNet classes and detected objects. A text query is embedded with the same text encoder and ranked against these concept vectors, fused with caption similarity.',
    dependencies: null,
  },
  available: (installed) => installed.imageClassifier,
  run: ({ db, vectors, textEncoder }) => {
    /** Text vectors of concept terms: a bounded vocabulary (ImageNet and COCO names), embedded once per worker. */
    const termVectors = new Map<string, Float32Array>();
    return {
      prepare: (version) => vectors.ensureCollection(conceptCollection(version.vector_space_id), textEncoder.dim),
      async infer(version, batch) {
        const objects = await objectsOf(db, version.id, batch.map((media) => media.id));
        const terms = batch.map((media) => conceptTerms(media.classes, objects.filter((object) => object.media_id === media.id)));
        const missing = [...new Set(terms.flat().map((term) => term.text))].filter((text) => !termVectors.has(text));
        if (missing.length > 0) (await textEncoder.encode(missing)).forEach((vector, i) => termVectors.set(missing[i], vector));
        const concepts = batch.flatMap((media, i) =>
          terms[i].length === 0 ? [] : [{ mediaId: media.id, key: conceptKey(terms[i]), vector: conceptVector(terms[i], (text) => termVectors.get(text)!) }],
        );
        await vectors.upsert(conceptCollection(version.vector_space_id), concepts.map((concept) => ({ id: concept.key, vector: concept.vector })));
        return concepts.map((concept) => ({ id: concept.mediaId, key: concept.key }));
      },
      write: (trx, version, _batch, keys) => setConceptKeys(trx, version.id, keys),
    };
  },
});
