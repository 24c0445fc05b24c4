import type { Db } from '../db/connection';
import type { DatasetRow } from '../db/repositories/datasets';
import type { Relevance } from '../db/repositories/explore';
import { headVersion } from '../db/repositories/versions';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { MODEL_IDS } from '../lib/enrichment/catalog';
import { CONCEPT_TEMPLATE, conceptQuery } from '../lib/enrichment/concepts';
import type { ClipModel } from '../lib/ml/clip';
import { captionCollection, clipCollection, conceptCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { VISUAL_SEARCH_LIMIT } from './visualSearch';

/** How much each search counts in an image's distance when both found it: what the models saw weighs more than a caption about it. */
const CAPTION_WEIGHT = 0.3;
const CONCEPT_WEIGHT = 0.7;

/**
 * Semantic text search. The query is embedded with all-MiniLM-L6-v2 and compared with every
 * caption's embedding and, once MULTIMODEL_IMAGE_ENCODING was applied, with what that model made:
 * every image's concept vector (what its classes and objects say, in the same text space), or with a
 * site's own CLIP, the image's CLIP vector against the query's CLIP text vector. An image found by
 * both ranks at the weighted mean of its distances; only those below `maxDistance` are kept.
 */
export async function semanticRelevance(
  deps: { db: Db; vectors: VectorStore; textEncoder: () => Promise<TextEncoder>; clip: () => Promise<ClipModel> },
  dataset: DatasetRow,
  text: string,
  maxDistance?: number,
): Promise<Relevance> {
  const encoder = await deps.textEncoder();
  const multimodal = (await headVersion(deps.db, dataset.id)).enrichment_models.MULTIMODEL_IMAGE_ENCODING;
  const concepts = multimodal === MODEL_IDS.conceptEncoder;
  // One encoder call: the query, and for concept search the query phrased as the terms are and the bare template.
  const [query, phrased, template] = await encoder.encode(concepts ? [text, conceptQuery(text), CONCEPT_TEMPLATE] : [text]);
  const searches: Array<{ key: 'id' | 'caption_key' | 'concept_key'; collection: string; query: Float32Array; weight: number; rescale?: number }> = [
    { key: 'caption_key', collection: captionCollection(dataset.vector_space_id), query, weight: CAPTION_WEIGHT },
  ];
  if (concepts) {
    const shared = phrased.reduce((sum, value, i) => sum + value * template[i], 0);
    searches.push({ key: 'concept_key', collection: conceptCollection(dataset.vector_space_id), query: phrased, weight: CONCEPT_WEIGHT, rescale: shared });
  }
  if (multimodal === MODEL_IDS.clip) {
    const clip = await deps.clip();
    const [clipQuery] = await clip.encodeTexts([text]);
    searches.push({ key: 'id', collection: clipCollection(dataset.vector_space_id, clip.modelId), query: clipQuery, weight: CONCEPT_WEIGHT });
  }
  // A collection not made yet (no caption was ever embedded in this vector space) finds nothing.
  const existing = new Set(await deps.vectors.listCollections());
  const by = await Promise.all(
    searches.map(async ({ key, collection, query, weight, rescale }) => {
      const [hits] = existing.has(collection) ? await deps.vectors.searchMany(collection, [query], VISUAL_SEARCH_LIMIT) : [[]];
      const distances = hits.map((hit) => (rescale === undefined ? hit.distance : withoutTemplate(hit.distance, rescale)));
      return { key, ids: hits.map((hit) => hit.id), distances, weight };
    }),
  );
  return { by, maxDistance };
}

/**
 * A concept distance without the share of the template both sides are phrased in ("a photo of …"):
 * the similarity the query has with the bare template (`shared`) counts as none, so unrelated images
 * stay near 1 and the spec's distance guide (0.4 strong, 0.6 loose) keeps its meaning.
 */
function withoutTemplate(distance: number, shared: number): number {
  const similarity = (1 - distance - shared) / (1 - shared);
  return Math.min(2, Math.max(0, 1 - similarity));
}
