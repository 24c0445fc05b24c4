import fs from 'node:fs';
import path from 'node:path';
import { Index, MetricKind, ScalarKind, type BatchMatches, type Matches } from 'usearch';
import { bytesToVector, vectorToBytes } from './vectorBytes';
import type { VectorHit, VectorPoint, VectorStore } from './vectorStore';

const REPLAY_BATCH = 5000;
/** Save the index cache after this many replayed rows, so a restart does not rebuild from scratch. */
const CACHE_AFTER_ROWS = 2000;

interface LoadedCollection {
  generation: string;
  dim: number;
  index: Index;
  keyOf: Map<string, bigint>;
  idOf: Map<bigint, string>;
  nextKey: bigint;
  lastSeq: string;
  rowsSinceCache: number;
}

interface CacheMeta {
  generation: string;
  dim: number;
  lastSeq: string;
  nextKey: string;
  keys: Array<[string, string]>;
}


export interface CollectionChanges {
  generation: string;
  dim: number;
  changes: Array<{ id: string; seq: string; vector: Buffer | null }>;
}

/** Where the embedded store keeps its points durably (Postgres, in db/repositories/vectorPoints.ts). */
export interface PointRows {
  /** Makes the collection unless it exists; answers its dimension. */
  createCollection(name: string, dim: number): Promise<{ dim: number }>;
  dropCollection(name: string): Promise<void>;
  upsert(name: string, points: Array<{ id: string; vector: Buffer }>): Promise<void>;
  /** Deletions are written as rows without a vector, so every reader replays them. */
  markDeleted(name: string, ids: string[]): Promise<void>;
  vectors(name: string, ids: string[]): Promise<Array<{ id: string; vector: Buffer }>>;
  count(name: string): Promise<number>;
  /**
   * In one query: the collection's generation (changes when it is made again) and dimension, and up
   * to `limit` writes after `seq`, oldest first; undefined when the collection does not exist.
   */
  changesAfter(name: string, seq: string, limit: number): Promise<CollectionChanges | undefined>;
}

function newIndex(dim: number): Index {
  return new Index({
    dimensions: dim,
    metric: MetricKind.Cos,
    quantization: ScalarKind.F16,
    connectivity: 16,
    expansion_add: 128,
    expansion_search: 128,
    multi: false,
  });
}

/**
 * The default VectorStore: points live in Postgres (durable, transactional, shared by the API and
 * worker processes); each process searches an in-memory usearch HNSW index that it keeps up to
 * date by replaying rows newer than the last one it saw, and caches on disk under `cacheDir`.
 */
export function createEmbeddedVectorStore(options: { rows: PointRows; cacheDir: string }): VectorStore {
  const { rows: points, cacheDir } = options;
  const loaded = new Map<string, LoadedCollection>();
  const locks = new Map<string, Promise<unknown>>();
  /** Refreshes queued behind a running one and not yet started: every caller arriving meanwhile shares it. */
  const queuedRefreshes = new Map<string, Promise<LoadedCollection>>();

  const cacheFiles = (collection: string) => ({
    index: path.join(cacheDir, `${collection}.usearch`),
    meta: path.join(cacheDir, `${collection}.json`),
  });

  /** Runs `fn` after any pending work on the same collection (refreshes must not interleave). */
  function serialised<T>(collection: string, fn: () => Promise<T>): Promise<T> {
    const previous = locks.get(collection) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    locks.set(collection, run.catch(() => undefined));
    return run;
  }

  function loadCache(collection: string, generation: string, dim: number): LoadedCollection | undefined {
    const files = cacheFiles(collection);
    try {
      const meta = JSON.parse(fs.readFileSync(files.meta, 'utf8')) as CacheMeta;
      if (meta.generation !== generation || meta.dim !== dim) return undefined;
      const index = newIndex(dim);
      index.load(files.index);
      const keyOf = new Map(meta.keys.map(([id, key]) => [id, BigInt(key)]));
      const idOf = new Map(meta.keys.map(([id, key]) => [BigInt(key), id]));
      return { generation, dim, index, keyOf, idOf, nextKey: BigInt(meta.nextKey), lastSeq: meta.lastSeq, rowsSinceCache: 0 };
    } catch {
      return undefined;
    }
  }

  function saveCache(collection: string, state: LoadedCollection): void {
    fs.mkdirSync(cacheDir, { recursive: true });
    const files = cacheFiles(collection);
    // Write both files under temp names and rename: a crash never leaves a torn cache.
    state.index.save(`${files.index}.tmp`);
    const meta: CacheMeta = {
      generation: state.generation,
      dim: state.dim,
      lastSeq: state.lastSeq,
      nextKey: state.nextKey.toString(),
      keys: [...state.keyOf].map(([id, key]) => [id, key.toString()]),
    };
    fs.writeFileSync(`${files.meta}.tmp`, JSON.stringify(meta));
    fs.renameSync(`${files.index}.tmp`, files.index);
    fs.renameSync(`${files.meta}.tmp`, files.meta);
    state.rowsSinceCache = 0;
  }

  /**
   * Brings this process's index of `collection` up to date with Postgres, as of a moment after the
   * call. Concurrent searches share one queued refresh instead of each waiting for its own two queries.
   */
  function refresh(collection: string): Promise<LoadedCollection> {
    const queued = queuedRefreshes.get(collection);
    if (queued) return queued;
    const run = serialised(collection, async () => {
      queuedRefreshes.delete(collection);
      return replayChanges(collection);
    });
    queuedRefreshes.set(collection, run);
    return run;
  }

  /** One query when nothing changed (the steady state of a search), one more per REPLAY_BATCH changes. */
  async function replayChanges(collection: string): Promise<LoadedCollection> {
    let state = loaded.get(collection);
    // Before the first load only the generation is wanted: the disk cache may already hold the points.
    let batch = await points.changesAfter(collection, state?.lastSeq ?? '0', state ? REPLAY_BATCH : 0);
    if (batch && (!state || state.generation !== batch.generation)) {
      state =
        loadCache(collection, batch.generation, batch.dim) ??
        { generation: batch.generation, dim: batch.dim, index: newIndex(batch.dim), keyOf: new Map(), idOf: new Map(), nextKey: 0n, lastSeq: '0', rowsSinceCache: 0 };
      loaded.set(collection, state);
      batch = await points.changesAfter(collection, state.lastSeq, REPLAY_BATCH);
    }
    if (!batch || !state) throw new Error(`vector collection ${collection} does not exist`);
    while (batch && batch.changes.length > 0) {
      const keys: bigint[] = [];
      const vectors: Float32Array[] = [];
      for (const point of batch.changes) {
        const old = state.keyOf.get(point.id);
        if (old !== undefined) {
          state.index.remove(old);
          state.idOf.delete(old);
          state.keyOf.delete(point.id);
        }
        if (point.vector) {
          const key = state.nextKey++;
          state.keyOf.set(point.id, key);
          state.idOf.set(key, point.id);
          keys.push(key);
          vectors.push(bytesToVector(point.vector));
        }
      }
      if (keys.length > 0) {
        state.index.add(keys, vectors, 0);
      }
      state.lastSeq = batch.changes[batch.changes.length - 1].seq;
      state.rowsSinceCache += batch.changes.length;
      batch = batch.changes.length < REPLAY_BATCH ? undefined : await points.changesAfter(collection, state.lastSeq, REPLAY_BATCH);
    }
    if (state.rowsSinceCache >= CACHE_AFTER_ROWS) saveCache(collection, state);
    return state;
  }

  function hitsOf(state: LoadedCollection, keys: BigUint64Array, distances: Float32Array, count: number): VectorHit[] {
    const hits: VectorHit[] = [];
    for (let i = 0; i < count; i++) {
      const id = state.idOf.get(keys[i]);
      if (id !== undefined) hits.push({ id, distance: Math.max(0, distances[i]) });
    }
    return hits;
  }

  return {
    async ensureCollection(collection, dim) {
      const row = await points.createCollection(collection, dim);
      if (row.dim !== dim) throw new Error(`vector collection ${collection} has dimension ${row.dim}, not ${dim}`);
    },

    async dropCollection(collection) {
      await points.dropCollection(collection);
      loaded.delete(collection);
      const files = cacheFiles(collection);
      fs.rmSync(files.index, { force: true });
      fs.rmSync(files.meta, { force: true });
    },

    async upsert(collection, written: VectorPoint[]) {
      // One row per id, the last one given (two equal concept keys in one batch are one point).
      const latest = new Map(written.map((point) => [point.id, point.vector]));
      await points.upsert(collection, [...latest].map(([id, vector]) => ({ id, vector: vectorToBytes(vector) })));
    },

    async delete(collection, ids) {
      await points.markDeleted(collection, ids);
    },

    async get(collection, ids) {
      const rows = await points.vectors(collection, ids);
      return new Map(rows.map((row) => [row.id, bytesToVector(row.vector)]));
    },

    async count(collection) {
      return points.count(collection);
    },

    async searchMany(collection, queries, k) {
      if (queries.length === 0) return [];
      const state = await refresh(collection);
      if (state.index.size() === 0) return queries.map(() => []);
      const limit = Math.min(k, state.index.size());
      if (queries.length === 1) {
        const matches = state.index.search(queries[0], limit, 0) as Matches;
        return [hitsOf(state, matches.keys, matches.distances, matches.keys.length)];
      }
      const batch = state.index.search(queries, limit, 0) as BatchMatches;
      return queries.map((_, q) => {
        const offset = q * batch.k;
        return hitsOf(state, batch.keys.subarray(offset), batch.distances.subarray(offset), Number(batch.counts[q]));
      });
    },

    async close() {
      for (const [collection, state] of loaded) {
        if (state.rowsSinceCache > 0) await serialised(collection, async () => saveCache(collection, state));
      }
      loaded.clear();
    },
  };
}
