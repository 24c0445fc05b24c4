import type { QdrantClient as QdrantClientClass } from '@qdrant/js-client-rest' with { 'resolution-mode': 'import' };
import type { VectorHit, VectorStore } from './vectorStore';

// The package ships a CommonJS build, but its type declarations are marked ESM-only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { QdrantClient } = require('@qdrant/js-client-rest') as { QdrantClient: typeof QdrantClientClass };

const UPSERT_BATCH = 256;

/** VectorStore over a Qdrant server (QDRANT_URL), through the official REST client. */
export function createQdrantVectorStore(options: { url: string; apiKey?: string }): VectorStore {
  const client = new QdrantClient({ url: options.url, apiKey: options.apiKey, checkCompatibility: false });

  return {
    async ensureCollection(collection, dim) {
      const { exists } = await client.collectionExists(collection);
      if (!exists) {
        try {
          await client.createCollection(collection, { vectors: { size: dim, distance: 'Cosine' } });
        } catch (error) {
          // Another process created it in between; the dimension check below still applies.
          if (!(await client.collectionExists(collection)).exists) throw error;
        }
      }
      const info = await client.getCollection(collection);
      const vectors = info.config.params.vectors as { size?: number } | undefined;
      if (vectors?.size !== dim) throw new Error(`vector collection ${collection} has dimension ${vectors?.size}, not ${dim}`);
    },

    async dropCollection(collection) {
      if ((await client.collectionExists(collection)).exists) await client.deleteCollection(collection);
    },

    async upsert(collection, points) {
      for (let i = 0; i < points.length; i += UPSERT_BATCH) {
        await client.upsert(collection, {
          wait: true,
          points: points.slice(i, i + UPSERT_BATCH).map((point) => ({ id: point.id, vector: Array.from(point.vector) })),
        });
      }
    },

    async delete(collection, ids) {
      if (ids.length > 0) await client.delete(collection, { wait: true, points: ids });
    },

    async get(collection, ids) {
      if (ids.length === 0) return new Map();
      const points = await client.retrieve(collection, { ids, with_vector: true, with_payload: false });
      return new Map(points.map((point) => [String(point.id), Float32Array.from(point.vector as number[])]));
    },

    async count(collection) {
      return (await client.count(collection, { exact: true })).count;
    },

    async searchMany(collection, queries, k): Promise<VectorHit[][]> {
      if (queries.length === 0) return [];
      const results = await client.searchBatch(collection, {
        searches: queries.map((vector) => ({ vector: Array.from(vector), limit: k, with_payload: false })),
      });
      // Qdrant's Cosine score is the similarity; the port speaks cosine distance.
      return results.map((hits) => hits.map((hit) => ({ id: String(hit.id), distance: Math.max(0, 1 - hit.score) })));
    },

    async close() {},
  };
}
