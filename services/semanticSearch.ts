import type { Db } from '../db/connection';
import type { DatasetRow } from '../db/repositories/datasets';
import { mediaByCaptionKeys } from '../db/repositories/media';
import type { Relevance } from '../db/repositories/explore';
import type { TextEncoder } from '../lib/ml/textEncoder';
import { captionCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { VISUAL_SEARCH_LIMIT } from './visualSearch';

/**
 * Semantic text search over captions: the query and every caption are embedded with
 * all-MiniLM-L6-v2; media are ranked by cosine distance, keeping those below `maxDistance`.
 */
export async function semanticRelevance(
  deps: { db: Db; vectors: VectorStore; textEncoder: () => Promise<TextEncoder> },
  dataset: DatasetRow,
  text: string,
  maxDistance?: number,
): Promise<Relevance> {
  const encoder = await deps.textEncoder();
  const [query] = await encoder.encode([text]);
  // The collection exists from indexing on; with no caption embedded yet nothing matches.
  const [hits] = await deps.vectors.searchMany(captionCollection(dataset.vector_space_id), [query], VISUAL_SEARCH_LIMIT);
  const kept = maxDistance === undefined ? hits : hits.filter((hit) => hit.distance < maxDistance);
  // Hits are caption texts; every media item of the head version with that caption ranks at its distance.
  const distanceOf = new Map(kept.map((hit) => [hit.id, hit.distance]));
  const media = await mediaByCaptionKeys(deps.db, dataset.head_version_id, [...distanceOf.keys()]);
  return { ids: media.map((m) => m.id), distances: media.map((m) => distanceOf.get(m.caption_key)!) };
}
