export interface VectorPoint {
  id: string;
  vector: Float32Array;
}

export interface VectorHit {
  id: string;
  /** Cosine distance: 0 identical, 1 unrelated, 2 opposite. */
  distance: number;
}

/**
 * The vector-store port: Qdrant when QDRANT_URL is set, else the embedded on-disk index. Ids are
 * UUIDs (media ids, caption keys); vectors are compared by cosine distance. Both implementations pass
 * test/contract/vectorStore.contract.ts.
 */
export interface VectorStore {
  ensureCollection(collection: string, dim: number): Promise<void>;
  dropCollection(collection: string): Promise<void>;
  /** The names of every collection (the storage collector finds a vector space's among them). */
  listCollections(): Promise<string[]>;
  /** Inserts or replaces points; safe to repeat. */
  upsert(collection: string, points: VectorPoint[]): Promise<void>;
  delete(collection: string, ids: string[]): Promise<void>;
  get(collection: string, ids: string[]): Promise<Map<string, Float32Array>>;
  count(collection: string): Promise<number>;
  /**
   * Readies a collection for its first search, so no request pays for it: the embedded store loads the published
   * index and catches up with newer rows (seconds at a million points); Qdrant has nothing to do. A missing collection is ignored.
   */
  warm(collection: string): Promise<void>;
  /** The k nearest points to each query vector, nearest first. */
  searchMany(collection: string, queries: Float32Array[], k: number): Promise<VectorHit[][]>;
  close(): Promise<void>;
}

const hex = (id: string) => id.replace(/-/g, '');

/**
 * Image and frame vectors of a vector space (the dataset a lineage of versions started from),
 * keyed by media id: every version and copy that holds a media item shares its vector.
 */
export function imageCollection(vectorSpaceId: string): string {
  return `dataset_${hex(vectorSpaceId)}`;
}

/** Whether `collection` is one of the vector space's (any of the names below). */
export function isCollectionOfSpace(collection: string, vectorSpaceId: string): boolean {
  return isMediaCollectionOfSpace(collection, vectorSpaceId) || [captionCollection, objectCollection, conceptCollection].some((name) => name(vectorSpaceId) === collection);
}

/** Whether `collection` is one of the vector space's keyed by media id: its images' or a CLIP model's. */
export function isMediaCollectionOfSpace(collection: string, vectorSpaceId: string): boolean {
  return collection === imageCollection(vectorSpaceId) || collection.startsWith(`clip_${hex(vectorSpaceId)}_`);
}

/** Caption vectors of a vector space, keyed by the caption's content (media.caption_key), for semantic text search. */
export function captionCollection(vectorSpaceId: string): string {
  return `caption_texts_${hex(vectorSpaceId)}`;
}

/** Crop vectors of detected objects (image encoder space), keyed by object id. */
export function objectCollection(vectorSpaceId: string): string {
  return `objects_${hex(vectorSpaceId)}`;
}

/** Image vectors of a site's own CLIP model (`modelId` from its manifest: two CLIP models never share a collection), keyed by media id. */
export function clipCollection(vectorSpaceId: string, modelId: string): string {
  return `clip_${hex(vectorSpaceId)}_${modelId.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`;
}

/** Concept vectors of images (text encoder space, MULTIMODEL_IMAGE_ENCODING), keyed by their content (media.concept_key). */
export function conceptCollection(vectorSpaceId: string): string {
  return `concepts_${hex(vectorSpaceId)}`;
}
