import type { DatasetRow } from '../db/repositories/datasets';
import type { Relevance } from '../db/repositories/explore';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { captionCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { VISUAL_SEARCH_LIMIT } from './visualSearch';

/**
 * Semantic text search over captions: the query and every caption are embedded with
 * all-MiniLM-L6-v2; media are ranked by cosine distance, keeping those below `maxDistance`.
 */
export async function semanticRelevance(
  deps: { vectors: VectorStore; textEncoder: () => Promise<TextEncoder> },
  dataset: DatasetRow,
  text: string,
  maxDistance?: number,
): Promise<Relevance> {
  const encoder = await deps.textEncoder();
  const [query] = await encoder.encode([text]);
  // The collection exists from indexing on; with no caption embedded yet nothing matches.
  const [hits] = await deps.vectors.searchMany(captionCollection(dataset.vector_space_id), [query], VISUAL_SEARCH_LIMIT);
  const kept = maxDistance === undefined ? hits : hits.filter((hit) => hit.distance < maxDistance);
  // Hits are caption texts: Explore's query ranks every media item with one of them, in SQL.
  return { of: 'caption', ids: kept.map((hit) => hit.id), distances: kept.map((hit) => hit.distance) };
}
