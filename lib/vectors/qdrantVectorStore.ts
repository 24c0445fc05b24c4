import type { QdrantClient as QdrantClientClass } from '@qdrant/js-client-rest' with { 'resolution-mode': 'import' };
import type { VectorHit, VectorStore } from './vectorStore';

const UPSERT_BATCH = 256;
/** Longest wait for one request: the client's own default is five minutes, and a server that drops or hangs a request otherwise holds its caller that long. */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The error a caller can act on: Qdrant's own reason for a refused request (the client says only
 * "Bad Request"); a timeout, or a connection closed or refused before an answer, with a socket error
 * code (ETIMEDOUT, ECONNRESET, ...), so the API answers 503 as for its other unreachable services.
 * Errors are told apart by name, not class: fetch's AbortError may come from another realm (jest's),
 * and then the client passes it on as it is instead of as its QdrantClientTimeoutError.
 */
function explained(error: unknown, operation: string, collection: string, timeoutMs: number): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const { name, message, status, data } = error as { name?: unknown; message?: unknown; status?: unknown; data?: { status?: { error?: unknown } } };
  if (name === 'QdrantClientTimeoutError' || name === 'AbortError') {
    return Object.assign(new Error(`Qdrant did not answer ${operation} of ${collection} within ${timeoutMs} ms`, { cause: error }), { code: 'ETIMEDOUT' });
  }
  if (message === 'fetch failed') {
    // No answer (refused, reset, closed before answering): unreachable, whatever code the transport gave, if any.
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const code = typeof cause?.code === 'string' && /^E[A-Z]+$/.test(cause.code) ? cause.code : 'ECONNRESET';
    return Object.assign(new Error(`Qdrant did not answer ${operation} of ${collection}: ${String(cause?.message ?? message)}`, { cause: error }), { code });
  }
  if (typeof status === 'number') {
    return new Error(`Qdrant refused ${operation} of ${collection}: ${status} ${String(data?.status?.error ?? message)}`, { cause: error });
  }
  return error;
}

/** QDRANT_QUANTIZATION: int8 scalar-quantized copies of the vectors beside the float32 ones, or float32 only. */
export type QdrantQuantization = 'int8' | 'none';

/**
 * int8 per dimension, its range the 0.99 quantile of the values (a few outliers do not stretch the scale for all),
 * kept in RAM while the float32 vectors may sit on disk for re-scoring. Measured in docs/models.md ("Quantized vectors").
 */
export const INT8_SCALAR_QUANTIZATION = { scalar: { type: 'int8', quantile: 0.99, always_ram: true } } as const;
/**
 * Searches take this many times `k` candidates by the quantized vectors and re-score them with the float32 ones, so
 * the answers' order and distances are float32's: a neighbour that int8 ranks just past k is still found.
 */
export const QDRANT_OVERSAMPLING = 2;

/** Whether a collection's quantization config is the one `wanted` (absent for none). */
function quantizedAsWanted(config: unknown, wanted: QdrantQuantization): boolean {
  if (wanted === 'none') return config === null || config === undefined;
  const scalar = (config as { scalar?: { type?: string; quantile?: number | null; always_ram?: boolean | null } } | null | undefined)?.scalar;
  const target = INT8_SCALAR_QUANTIZATION.scalar;
  return scalar?.type === target.type && scalar.quantile === target.quantile && scalar.always_ram === target.always_ram;
}

/** VectorStore over a Qdrant server (QDRANT_URL), through the official REST client. */
export function createQdrantVectorStore(options: { url: string; apiKey?: string; timeoutMs?: number; quantization?: QdrantQuantization }): VectorStore {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const quantization = options.quantization ?? 'int8';
  const quantizationConfig = quantization === 'int8' ? INT8_SCALAR_QUANTIZATION : undefined;
  const searchParams = quantization === 'int8' ? { quantization: { rescore: true, oversampling: QDRANT_OVERSAMPLING } } : undefined;
  // Required here, not at the top: only a deployment with QDRANT_URL loads the client (and undici under it).
  // The package ships a CommonJS build, but its type declarations are marked ESM-only.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { QdrantClient } = require('@qdrant/js-client-rest') as { QdrantClient: typeof QdrantClientClass };
  const client = new QdrantClient({ url: options.url, apiKey: options.apiKey, checkCompatibility: false, timeout: timeoutMs });
  /** One request of `operation` on `collection`, its errors explained. */
  const request = async <T>(operation: string, collection: string, send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (error) {
      throw explained(error, operation, collection, timeoutMs);
    }
  };

  return {
    async ensureCollection(collection, dim) {
      const exists = async () => (await request('collectionExists', collection, () => client.collectionExists(collection))).exists;
      if (!(await exists())) {
        try {
          await request('createCollection', collection, () => client.createCollection(collection, { vectors: { size: dim, distance: 'Cosine' }, quantization_config: quantizationConfig }));
        } catch (error) {
          // Another process created it in between; the dimension check below still applies.
          if (!(await exists())) throw error;
        }
      }
      const info = await request('getCollection', collection, () => client.getCollection(collection));
      const vectors = info.config.params.vectors as { size?: number } | undefined;
      if (vectors?.size !== dim) throw new Error(`vector collection ${collection} has dimension ${vectors?.size}, not ${dim}`);
      // A collection made before the setting (or under another value) is brought to it; Qdrant re-quantizes in the background.
      if (!quantizedAsWanted(info.config.quantization_config, quantization)) {
        await request('updateCollection', collection, () => client.updateCollection(collection, { quantization_config: quantizationConfig ?? 'Disabled' }));
      }
    },

    async dropCollection(collection) {
      if ((await request('collectionExists', collection, () => client.collectionExists(collection))).exists) {
        await request('deleteCollection', collection, () => client.deleteCollection(collection));
      }
    },

    async upsert(collection, points) {
      for (let i = 0; i < points.length; i += UPSERT_BATCH) {
        const batch = points.slice(i, i + UPSERT_BATCH).map((point) => ({ id: point.id, vector: Array.from(point.vector) }));
        await request('upsert', collection, () => client.upsert(collection, { wait: true, points: batch }));
      }
    },

    async delete(collection, ids) {
      if (ids.length > 0) await request('delete', collection, () => client.delete(collection, { wait: true, points: ids }));
    },

    async get(collection, ids) {
      if (ids.length === 0) return new Map();
      const points = await request('retrieve', collection, () => client.retrieve(collection, { ids, with_vector: true, with_payload: false }));
      return new Map(points.map((point) => [String(point.id), Float32Array.from(point.vector as number[])]));
    },

    async listCollections() {
      return (await request('getCollections', '*', () => client.getCollections())).collections.map((collection) => collection.name);
    },

    async count(collection) {
      return (await request('count', collection, () => client.count(collection, { exact: true }))).count;
    },

    async searchMany(collection, queries, k): Promise<VectorHit[][]> {
      if (queries.length === 0) return [];
      const searches = queries.map((vector) => ({ vector: Array.from(vector), limit: k, with_payload: false, params: searchParams }));
      const results = await request('searchBatch', collection, () => client.searchBatch(collection, { searches }));
      // Qdrant's Cosine score is the similarity; the port speaks cosine distance.
      return results.map((hits) => hits.map((hit) => ({ id: String(hit.id), distance: Math.max(0, 1 - hit.score) })));
    },

    async warm() {},

    async close() {},
  };
}
