import type { Db } from '../db/connection';
import type { DatasetRow } from '../db/repositories/datasets';
import type { Relevance } from '../db/repositories/explore';
import { headVersion } from '../db/repositories/versions';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { captionCollection, conceptCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { VISUAL_SEARCH_LIMIT } from './visualSearch';

/**
 * Semantic text search. The query is embedded with all-MiniLM-L6-v2 and compared with every
 * caption's embedding and, once MULTIMODEL_IMAGE_ENCODING was applied, with every image's concept
 * vector (what its classes and objects say, in the same text space); media rank at the nearest of
 * the two cosine distances, keeping those below `maxDistance`.
 */
export async function semanticRelevance(
  deps: { db: Db; vectors: VectorStore; textEncoder: () => Promise<TextEncoder> },
  dataset: DatasetRow,
  text: string,
  maxDistance?: number,
): Promise<Relevance> {
  const encoder = await deps.textEncoder();
  const [query] = await encoder.encode([text]);
  const version = await headVersion(deps.db, dataset.id);
  const searches: Array<{ key: 'caption_key' | 'concept_key'; collection: string }> = [{ key: 'caption_key', collection: captionCollection(dataset.vector_space_id) }];
  if (version.enrichment_models.MULTIMODEL_IMAGE_ENCODING) searches.push({ key: 'concept_key', collection: conceptCollection(dataset.vector_space_id) });
  const by = await Promise.all(
    searches.map(async ({ key, collection }) => {
      // The collections exist from indexing (captions) and the enrichment's start (concepts) on.
      const [hits] = await deps.vectors.searchMany(collection, [query], VISUAL_SEARCH_LIMIT);
      const kept = maxDistance === undefined ? hits : hits.filter((hit) => hit.distance < maxDistance);
      return { key, ids: kept.map((hit) => hit.id), distances: kept.map((hit) => hit.distance) };
    }),
  );
  return { by };
}
