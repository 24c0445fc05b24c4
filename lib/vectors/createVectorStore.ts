import path from 'node:path';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { ObjectStore } from '../storage/objectStore';
import { createEmbeddedVectorStore, type IndexPersistence, type PointRows } from './embeddedVectorStore';
import { createQdrantVectorStore } from './qdrantVectorStore';
import type { VectorStore } from './vectorStore';

/**
 * How a process shares the embedded store's indexes through the object store: workers publish them
 * as they write (files made under DATA_DIR/tmp, then moved in), API processes only load them.
 */
export function indexPersistence(config: Config, objects: ObjectStore, role: 'api' | 'worker', logger?: Logger): IndexPersistence {
  return {
    objects,
    publish: role === 'worker' ? { scratchDir: path.join(config.dataDir, 'tmp', 'vector-indexes') } : undefined,
    onError: (error, collection) => logger?.warn({ err: error, collection }, 'vector index not published or not loaded; readers replay its rows'),
    onLoaded: (collection, figures) => logger?.info({ collection, ...figures }, 'vector index ready'),
  };
}

/** Qdrant when QDRANT_URL is set, else the embedded index (points in Postgres, indexes shared through the object store). */
export function createVectorStore(config: Config, embeddedRows: PointRows, shared: { objects: ObjectStore; role: 'api' | 'worker'; logger?: Logger }): VectorStore {
  if (config.qdrant.url) return createQdrantVectorStore({ url: config.qdrant.url, apiKey: config.qdrant.apiKey, quantization: config.qdrant.quantization });
  return createEmbeddedVectorStore({ rows: embeddedRows, persistence: indexPersistence(config, shared.objects, shared.role, shared.logger) });
}
