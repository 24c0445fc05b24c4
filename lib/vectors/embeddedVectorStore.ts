import { exactSearch, Index, MetricKind, ScalarKind, type BatchMatches, type Matches } from 'usearch';
import { bytesToVector, vectorToBytes } from './vectorBytes';
import { vectorMatrix } from './vectorMatrix';
import type { ObjectStore } from '../storage/objectStore';
import { loadPersistedIndex, publishIndex, readHead, removePersistedIndex, type KeyMaps } from './persistedIndex';
import type { VectorHit, VectorPoint, VectorStore } from './vectorStore';

const REPLAY_BATCH = 5000;
/**
 * Up to this many points a collection is searched exactly, from vectors kept beside its index: in a graph this
 * small, HNSW now and then leaves a point no search reaches (a visual search or a duplicate pair of a small dataset
 * would miss it), and comparing with every point costs under a millisecond a query.
 */
export const EXACT_SEARCH_MAX_POINTS = 1000;
interface LoadedCollection {
  generation: string;
  dim: number;
  /** Every point, or (with `base`) only those replayed since the base was published. */
  index: Index;
  /**
   * The published index, memory-mapped read-only (a view costs milliseconds where a load of 100,000 x 1280 costs
   * ~0.4 s, and its pages are the kernel's to share and reclaim). Its keys are those below `keyLimit`; `removed` of
   * them were replaced or deleted since (searches ask it for that many more and drop them).
   */
  base?: { index: Index; keyLimit: number; removed: number; seq: string; nextDriftCheck: number };
  /** usearch keys are bigints; kept as numbers here, which maps of 100,000 build several times faster. */
  keyOf: Map<string, number>;
  idOf: Map<number, string>;
  nextKey: number;
  lastSeq: string;
  /** Rows replayed since the index was loaded from or published to the object store. */
  rowsSincePersisted: number;
  /** Every point's vector by key while the collection has at most EXACT_SEARCH_MAX_POINTS (then searched exactly); dropped once it grows past. */
  exact?: Map<number, Float32Array>;
  /** The same vectors in one matrix, as exact search takes them; made again after a change. */
  exactMatrix?: { keys: number[]; data: Float32Array };
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
  listCollections(): Promise<string[]>;
  upsert(name: string, points: Array<{ id: string; vector: Buffer }>): Promise<void>;
  /** Deletions are written as rows without a vector, so every reader replays them. */
  markDeleted(name: string, ids: string[]): Promise<void>;
  vectors(name: string, ids: string[]): Promise<Array<{ id: string; vector: Buffer }>>;
  count(name: string): Promise<number>;
  /**
   * Runs `publish` while this process alone publishes the collection's index (an advisory lock); false, without
   * running it, when another process is publishing it.
   */
  whilePublishing(name: string, publish: () => Promise<void>): Promise<boolean>;
  /**
   * In one query: the collection's generation (changes when it is made again) and dimension, and up
   * to `limit` writes after `seq`, oldest first; undefined when the collection does not exist.
   */
  changesAfter(name: string, seq: string, limit: number): Promise<CollectionChanges | undefined>;
}

/**
 * The HNSW index every process builds of a collection. F16: half of F32's memory with the same duplicate pairs and
 * clusters; I8 saves another half but loses pairs (figures in docs/models.md "Quantized vectors", bench:quantization).
 */
export function newIndex(dim: number, quantization: ScalarKind = ScalarKind.F16): Index {
  return new Index({
    dimensions: dim,
    metric: MetricKind.Cos,
    quantization,
    connectivity: 16,
    expansion_add: 128,
    expansion_search: 128,
    multi: false,
  });
}

/** Publishing waits for writes to pause this long, so a stage's batches make one publication at its end. */
const PUBLISH_QUIET_MS = 2000;
/** During a long run of writes the index is caught up at least this often... */
const PUBLISH_MAX_DELAY_MS = 30_000;
/** ...and published when it grew by this share since the last publication (a publication writes it whole). */
const PUBLISH_GROWTH = 0.02;
const PUBLISH_MIN_ROWS = 1000;
/** How far a reader's replayed points may outgrow its viewed base before it looks for a newer published one. */
const driftAllowed = (baseSize: number) => Math.max(5000, Math.round(baseSize * 0.1));

type LoadMode = 'view' | 'load';

/** Where processes share their indexes: the object store that also holds the media, so API and worker may run on different machines. */
export interface IndexPersistence {
  objects: ObjectStore;
  /**
   * Set in worker processes: after writes they catch their index up and publish it (into files in
   * `scratchDir` first). API processes leave it out: they only load what workers published.
   */
  publish?: { scratchDir: string; quietMs?: number; maxDelayMs?: number };
  /** A failed background publication (the points are safe in Postgres; readers replay them). */
  onError?(error: unknown, collection: string): void;
  /**
   * A collection's catch-up from its published index (or from nothing): how it opened the index (`view`: mapped
   * read-only, to search; `load`: read whole, to publish again), the points it held (0 when nothing was published),
   * the rows replayed after them, and how long each took.
   */
  onLoaded?(collection: string, figures: { mode: LoadMode; points: number; loadMs: number; replayedRows: number; replayMs: number }): void;
}

/** The embedded store, plus what tests and benchmarks need to wait for. */
export interface EmbeddedVectorStore extends VectorStore {
  /** Publishes every collection with writes not yet published, now. */
  publishPending(): Promise<void>;
}

/**
 * The default VectorStore: points live in Postgres (durable, transactional, shared by the API and
 * worker processes); each process searches an in-memory usearch HNSW index that it keeps up to
 * date by replaying rows newer than the last one it saw. Workers publish their index to the object
 * store as they write; other processes start from the published index and replay only newer rows,
 * so no request builds an index from scratch.
 */
export function createEmbeddedVectorStore(options: {
  rows: PointRows;
  persistence?: IndexPersistence;
  /** Collections up to this many points are searched exactly (EXACT_SEARCH_MAX_POINTS; 0: always the index). */
  exactSearchMaxPoints?: number;
}): EmbeddedVectorStore {
  const { rows: points, persistence, exactSearchMaxPoints = EXACT_SEARCH_MAX_POINTS } = options;
  const publishing = persistence?.publish;
  const quietMs = publishing?.quietMs ?? PUBLISH_QUIET_MS;
  const maxDelayMs = publishing?.maxDelayMs ?? PUBLISH_MAX_DELAY_MS;
  const loaded = new Map<string, LoadedCollection>();
  const locks = new Map<string, Promise<unknown>>();
  /** Refreshes queued behind a running one and not yet started: every caller arriving meanwhile shares it. */
  const queuedRefreshes = new Map<string, Promise<LoadedCollection>>();
  /** Collections written since their last publication, with the timer that will publish them. */
  const unpublished = new Map<string, { timer: NodeJS.Timeout; since: number }>();
  /** Publications the timers started, so publishPending (and close) can wait for them. */
  const publications = new Set<Promise<void>>();
  let closed = false;

  /** Runs `fn` after any pending work on the same collection (refreshes must not interleave). */
  function serialised<T>(collection: string, fn: () => Promise<T>): Promise<T> {
    const previous = locks.get(collection) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    locks.set(collection, run.catch(() => undefined));
    return run;
  }

  function emptyState(generation: string, dim: number): LoadedCollection {
    return { generation, dim, index: newIndex(dim), keyOf: new Map(), idOf: new Map(), nextKey: 0, lastSeq: '0', rowsSincePersisted: 0, exact: exactSearchMaxPoints > 0 ? new Map() : undefined };
  }

  /** The collection's state on `index`, a view of a published snapshot whose keys and seq these are: replayed points go into an index beside it. */
  function viewedState(generation: string, dim: number, index: Index, keys: KeyMaps, nextKey: number, lastSeq: string): LoadedCollection {
    const base = { index, keyLimit: nextKey, removed: 0, seq: lastSeq, nextDriftCheck: driftAllowed(index.size()) };
    return { generation, dim, index: newIndex(dim), keyOf: keys.keyOf, idOf: keys.idOf, nextKey, lastSeq, rowsSincePersisted: 0, base };
  }

  /**
   * Searching needs only a view of the published index; publishing saves the whole index again, so it loads it
   * mutable (`load`) and holds it until its writes pause (publish).
   */
  async function loadPersisted(collection: string, generation: string, dim: number, mode: LoadMode): Promise<LoadedCollection | undefined> {
    if (!persistence) return undefined;
    const index = newIndex(dim);
    const persisted = await loadPersistedIndex(persistence.objects, collection, { generation, dim }, index, mode);
    // A small collection is replayed from its rows instead: that keeps its vectors for exact search, and costs little.
    if (!persisted || index.size() <= exactSearchMaxPoints) return undefined;
    const { head, keys } = persisted;
    if (mode === 'view') return viewedState(generation, dim, index, keys, Number(head.nextKey), head.lastSeq);
    return { generation, dim, index, ...keys, nextKey: Number(head.nextKey), lastSeq: head.lastSeq, rowsSincePersisted: 0 };
  }

  /**
   * Catches the index up and publishes it unless little changed while writes go on. Once writes pause (`quiet`),
   * the process goes on searching a view of the file it saved and lets the mutable index go: a worker holds a
   * collection's whole index in its own memory only while it writes to it.
   */
  async function publish(collection: string, quiet: boolean): Promise<void> {
    if (!persistence || !publishing) return;
    // Of the processes writing a collection, one at a time catches the index up and saves it; the others look again
    // once their writes pause, when its index may hold their rows already (each whole index took them as much CPU).
    const published = await points.whilePublishing(collection, async () => {
      await serialised(collection, async () => {
        const mine = loaded.get(collection);
        const head = mine && (await readHead(persistence.objects, collection));
        // Another process published rows this one has not seen: start from its index rather than replay them all.
        if (mine && head && head.generation === mine.generation && BigInt(head.lastSeq) > BigInt(mine.lastSeq)) loaded.delete(collection);
      });
      const current = await refresh(collection);
      await serialised(collection, async () => {
        if (loaded.get(collection) !== current || current.rowsSincePersisted === 0) return;
        const size = (current.base ? current.base.index.size() - current.base.removed : 0) + current.index.size();
        if (!quiet && current.rowsSincePersisted < Math.max(PUBLISH_MIN_ROWS, size * PUBLISH_GROWTH)) return;
        let state = current;
        if (state.base) {
          loaded.delete(collection);
          state = await replayChanges(collection, 'load');
        }
        const view = quiet && !state.exact && state.keyOf.size > exactSearchMaxPoints ? newIndex(state.dim) : undefined;
        const head = await publishIndex(persistence.objects, publishing.scratchDir, collection, state, view);
        state.rowsSincePersisted = 0;
        // Nothing replayed meanwhile (refreshes wait for this one), so the view holds every point the state does.
        if (view && head && !unpublished.has(collection)) loaded.set(collection, viewedState(state.generation, state.dim, view, state, state.nextKey, state.lastSeq));
      });
    });
    if (!published) schedulePublication(collection);
  }

  /** After a write: publish once writes pause for quietMs, or catch up (and publish if it grew enough) after maxDelayMs. */
  function schedulePublication(collection: string): void {
    if (!publishing || closed) return;
    const pending = unpublished.get(collection);
    if (pending) clearTimeout(pending.timer);
    const since = pending?.since ?? Date.now();
    const due = since + maxDelayMs - Date.now();
    const quiet = quietMs <= due;
    const timer = setTimeout(() => {
      unpublished.delete(collection);
      const run = publish(collection, quiet).catch((error: unknown) => persistence?.onError?.(error, collection));
      publications.add(run);
      void run.finally(() => publications.delete(run));
      if (!quiet) schedulePublication(collection);
    }, Math.max(0, Math.min(quietMs, due)));
    timer.unref();
    unpublished.set(collection, { timer, since });
  }

  /**
   * A reader whose replayed points outgrow its viewed base starts again from a newer published index,
   * if workers published one since; else it goes on and looks again after as many more rows.
   */
  async function reanchor(collection: string, state: LoadedCollection, base: NonNullable<LoadedCollection['base']>): Promise<LoadedCollection> {
    const head = persistence && (await readHead(persistence.objects, collection));
    if (head && head.generation === state.generation && BigInt(head.lastSeq) > BigInt(base.seq)) {
      loaded.delete(collection);
      return replayChanges(collection);
    }
    base.nextDriftCheck = base.removed + state.index.size() + driftAllowed(base.index.size());
    return state;
  }

  async function publishPending(): Promise<void> {
    await Promise.all(publications);
    for (const collection of [...unpublished.keys()]) {
      clearTimeout(unpublished.get(collection)?.timer);
      unpublished.delete(collection);
      await publish(collection, true);
    }
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
  async function replayChanges(collection: string, mode: LoadMode = 'view'): Promise<LoadedCollection> {
    let state = loaded.get(collection);
    // Before the first load only the generation is wanted: the published index may already hold the points.
    let batch = await points.changesAfter(collection, state?.lastSeq ?? '0', state ? REPLAY_BATCH : 0);
    let loading: { mode: LoadMode; replayFrom: number; loadMs: number; points: number } | undefined;
    if (batch && (!state || state.generation !== batch.generation)) {
      const { generation, dim } = batch;
      const startedAt = performance.now();
      state =
        (await loadPersisted(collection, generation, dim, mode).catch((error: unknown) => {
          // A snapshot removed or damaged under us costs a rebuild from the rows, never a wrong answer.
          persistence?.onError?.(error, collection);
          return undefined;
        })) ?? emptyState(generation, dim);
      loaded.set(collection, state);
      loading = { mode, replayFrom: performance.now(), loadMs: performance.now() - startedAt, points: state.keyOf.size };
      batch = await points.changesAfter(collection, state.lastSeq, REPLAY_BATCH);
    }
    if (!batch || !state) throw new Error(`vector collection ${collection} does not exist`);
    while (batch && batch.changes.length > 0) {
      const keys: bigint[] = [];
      const vectors: Float32Array[] = [];
      for (const point of batch.changes) {
        const old = state.keyOf.get(point.id);
        if (old !== undefined) {
          if (state.base && old < state.base.keyLimit) state.base.removed++;
          else state.index.remove(BigInt(old));
          state.exact?.delete(old);
          state.idOf.delete(old);
          state.keyOf.delete(point.id);
        }
        if (point.vector) {
          const key = state.nextKey++;
          state.keyOf.set(point.id, key);
          state.idOf.set(key, point.id);
          keys.push(BigInt(key));
          const vector = bytesToVector(point.vector);
          vectors.push(vector);
          state.exact?.set(key, vector);
        }
      }
      state.exactMatrix = undefined;
      if (state.exact && state.exact.size > exactSearchMaxPoints) state.exact = undefined;
      if (keys.length > 0) {
        state.index.add(keys, vectors, 0);
      }
      state.lastSeq = batch.changes[batch.changes.length - 1].seq;
      state.rowsSincePersisted += batch.changes.length;
      batch = batch.changes.length < REPLAY_BATCH ? undefined : await points.changesAfter(collection, state.lastSeq, REPLAY_BATCH);
    }
    if (state.base && state.base.removed + state.index.size() >= state.base.nextDriftCheck) return reanchor(collection, state, state.base);
    if (loading) {
      const { replayFrom, loadMs, points: loadedPoints } = loading;
      persistence?.onLoaded?.(collection, { mode, points: loadedPoints, loadMs, replayedRows: state.rowsSincePersisted, replayMs: performance.now() - replayFrom });
    }
    return state;
  }

  function hitsOf(state: LoadedCollection, keys: BigUint64Array, distances: Float32Array, count: number): VectorHit[] {
    const hits: VectorHit[] = [];
    for (let i = 0; i < count; i++) {
      const id = state.idOf.get(Number(keys[i]));
      if (id !== undefined) hits.push({ id, distance: Math.max(0, distances[i]) });
    }
    return hits;
  }

  /** The `k` nearest points to each query, comparing with every point of a small collection (`state.exact`). */
  function exactNearest(state: LoadedCollection, vectors: Map<number, Float32Array>, queries: Float32Array[], k: number): VectorHit[][] {
    if (vectors.size === 0) return queries.map(() => []);
    if (!state.exactMatrix) {
      state.exactMatrix = { keys: [...vectors.keys()], data: vectorMatrix([...vectors.values()], state.dim) };
    }
    const { keys, data: dataset } = state.exactMatrix;
    const limit = Math.min(k, keys.length);
    const hitsAt = (rows: BigUint64Array, distances: Float32Array, count: number): VectorHit[] => {
      const hits: VectorHit[] = [];
      for (let i = 0; i < count; i++) hits.push({ id: state.idOf.get(keys[Number(rows[i])])!, distance: Math.max(0, distances[i]) });
      return hits;
    };
    if (queries.length === 1) {
      const matches = exactSearch(dataset, queries[0], state.dim, limit, MetricKind.Cos) as Matches;
      return [hitsAt(matches.keys, matches.distances, matches.keys.length)];
    }
    const batch = exactSearch(dataset, queries, state.dim, limit, MetricKind.Cos) as BatchMatches;
    return queries.map((_, q) => hitsAt(batch.keys.subarray(q * batch.k), batch.distances.subarray(q * batch.k), Number(batch.counts[q])));
  }

  /** The `limit` nearest keys in `index` to each query, as hits (keys no longer standing for a point dropped). */
  function nearest(state: LoadedCollection, index: Index, queries: Float32Array[], limit: number): VectorHit[][] {
    if (queries.length === 1) {
      const matches = index.search(queries[0], limit, 0) as Matches;
      return [hitsOf(state, matches.keys, matches.distances, matches.keys.length)];
    }
    const batch = index.search(queries, limit, 0) as BatchMatches;
    return queries.map((_, q) => {
      const offset = q * batch.k;
      return hitsOf(state, batch.keys.subarray(offset), batch.distances.subarray(offset), Number(batch.counts[q]));
    });
  }

  return {
    async ensureCollection(collection, dim) {
      const row = await points.createCollection(collection, dim);
      if (row.dim !== dim) throw new Error(`vector collection ${collection} has dimension ${row.dim}, not ${dim}`);
    },

    async dropCollection(collection) {
      clearTimeout(unpublished.get(collection)?.timer);
      unpublished.delete(collection);
      await points.dropCollection(collection);
      loaded.delete(collection);
      if (persistence) await removePersistedIndex(persistence.objects, collection);
    },

    listCollections() {
      return points.listCollections();
    },

    async upsert(collection, written: VectorPoint[]) {
      // One row per id, the last one given (two equal concept keys in one batch are one point).
      const latest = new Map(written.map((point) => [point.id, point.vector]));
      await points.upsert(collection, [...latest].map(([id, vector]) => ({ id, vector: vectorToBytes(vector) })));
      schedulePublication(collection);
    },

    async delete(collection, ids) {
      await points.markDeleted(collection, ids);
      schedulePublication(collection);
    },

    async get(collection, ids) {
      const rows = await points.vectors(collection, ids);
      return new Map(rows.map((row) => [row.id, bytesToVector(row.vector)]));
    },

    async count(collection) {
      return points.count(collection);
    },

    async warm(collection) {
      if (await points.changesAfter(collection, '0', 0)) await refresh(collection);
    },

    async searchMany(collection, queries, k) {
      if (queries.length === 0) return [];
      const state = await refresh(collection);
      if (state.exact && !state.base) return exactNearest(state, state.exact, queries, k);
      const parts = [
        { index: state.index, extra: 0 },
        ...(state.base ? [{ index: state.base.index, extra: state.base.removed }] : []),
      ].filter((part) => part.index.size() > 0);
      const found = parts.map((part) => nearest(state, part.index, queries, Math.min(k + part.extra, part.index.size())));
      if (found.length < 2) return found[0] ?? queries.map(() => []);
      return queries.map((_, q) => found.flatMap((hits) => hits[q]).sort((a, b) => a.distance - b.distance).slice(0, k));
    },

    publishPending,

    async close() {
      await publishPending();
      // Left to the process publishing them now, or to the next write's.
      closed = true;
      for (const { timer } of unpublished.values()) clearTimeout(timer);
      unpublished.clear();
      loaded.clear();
    },
  };
}
