import type { Db } from '../db/connection';
import type { ImageEncoder } from '../lib/ml/imageEncoder';
import type { ObjectStore } from '../lib/storage/objectStore';
import { embedQueryImage } from '../services/visualSearch';
import type { QueryImage } from '../workflows/contracts';

/** Embeds an uploaded query image as a visual-search anchor (services/visualSearch.ts), on the inference queue. */
export function createVisualSearchActivities(deps: { db: Db; store: ObjectStore; encoder: ImageEncoder }) {
  return {
    encodeQueryImage: (query: QueryImage) => embedQueryImage(deps, query),
  };
}
