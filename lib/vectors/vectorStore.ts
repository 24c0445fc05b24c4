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
 * media UUIDs; vectors are compared by cosine distance. Both implementations pass
 * test/contract/vectorStore.contract.ts.
 */
export interface VectorStore {
  ensureCollection(collection: string, dim: number): Promise<void>;
  dropCollection(collection: string): Promise<void>;
  /** Inserts or replaces points; safe to repeat. */
  upsert(collection: string, points: VectorPoint[]): Promise<void>;
  delete(collection: string, ids: string[]): Promise<void>;
  get(collection: string, ids: string[]): Promise<Map<string, Float32Array>>;
  count(collection: string): Promise<number>;
  /** The k nearest points to each query vector, nearest first. */
  searchMany(collection: string, queries: Float32Array[], k: number): Promise<VectorHit[][]>;
  close(): Promise<void>;
}

/** One collection per dataset (versions come with snapshots). */
export function datasetCollection(datasetId: string): string {
  return `dataset_${datasetId.replace(/-/g, '')}`;
}

/** Caption embeddings of a dataset's media, for semantic text search. */
export function captionCollection(datasetId: string): string {
  return `captions_${datasetId.replace(/-/g, '')}`;
}
