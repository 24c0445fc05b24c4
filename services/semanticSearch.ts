import type { Db } from '../db/connection';
import type { DatasetRow } from '../db/repositories/datasets';
import type { Relevance } from '../db/repositories/explore';
import { headVersion } from '../db/repositories/versions';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { MODEL_IDS } from '../lib/enrichment/catalog';
import type { ClipModel } from '../lib/ml/clip';
import { captionCollection, clipCollection, conceptCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { VISUAL_SEARCH_LIMIT } from './visualSearch';

/**
 * Semantic text search. The query is embedded with all-MiniLM-L6-v2 and compared with every
 * caption's embedding and, once MULTIMODEL_IMAGE_ENCODING was applied, with what that model made:
 * every image's concept vector (what its classes and objects say, in the same text space), or with a
 * site's own CLIP, the image's CLIP vector against the query's CLIP text vector. Media rank at the
 * nearest of the distances, keeping those below `maxDistance`.
 */
export async function semanticRelevance(
  deps: { db: Db; vectors: VectorStore; textEncoder: () => Promise<TextEncoder>; clip: () => Promise<ClipModel> },
  dataset: DatasetRow,
  text: string,
  maxDistance?: number,
): Promise<Relevance> {
  const encoder = await deps.textEncoder();
  const [query] = await encoder.encode([text]);
  const version = await headVersion(deps.db, dataset.id);
  const searches: Array<{ key: 'id' | 'caption_key' | 'concept_key'; collection: string; query: Float32Array }> = [
    { key: 'caption_key', collection: captionCollection(dataset.vector_space_id), query },
  ];
  const multimodal = version.enrichment_models.MULTIMODEL_IMAGE_ENCODING;
  if (multimodal === MODEL_IDS.conceptEncoder) searches.push({ key: 'concept_key', collection: conceptCollection(dataset.vector_space_id), query });
  if (multimodal === MODEL_IDS.clip) {
    const clip = await deps.clip();
    const [clipQuery] = await clip.encodeTexts([text]);
    searches.push({ key: 'id', collection: clipCollection(dataset.vector_space_id, clip.modelId), query: clipQuery });
  }
  const by = await Promise.all(
    searches.map(async ({ key, collection, query }) => {
      // The collections exist from indexing (captions) and the enrichment's start (concepts) on.
      const [hits] = await deps.vectors.searchMany(collection, [query], VISUAL_SEARCH_LIMIT);
      const kept = maxDistance === undefined ? hits : hits.filter((hit) => hit.distance < maxDistance);
      return { key, ids: kept.map((hit) => hit.id), distances: kept.map((hit) => hit.distance) };
    }),
  );
  return { by };
}
