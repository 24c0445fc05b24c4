import path from 'node:path';
import type { Config } from '../config';
import { createEmbeddedVectorStore, type PointRows } from './embeddedVectorStore';
import { createQdrantVectorStore } from './qdrantVectorStore';
import type { VectorStore } from './vectorStore';

/** Qdrant when QDRANT_URL is set, else the embedded index (Postgres + usearch cache in DATA_DIR). */
export function createVectorStore(config: Config, embeddedRows: PointRows): VectorStore {
  if (config.qdrant.url) return createQdrantVectorStore({ url: config.qdrant.url, apiKey: config.qdrant.apiKey });
  return createEmbeddedVectorStore({ rows: embeddedRows, cacheDir: path.join(config.dataDir, 'vectors') });
}
