import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createDb, migrateLatest } from '../../db/connection';
import { createLocalObjectStore } from '../../lib/storage/localObjectStore';
import { createEmbeddedVectorStore, EXACT_SEARCH_MAX_POINTS, type PointRows } from '../../lib/vectors/embeddedVectorStore';
import { createVectorPointRows, writeInSeqOrder } from '../../db/repositories/vectorPoints';
import { vectorToBytes } from '../../lib/vectors/vectorBytes';
import { readHead } from '../../lib/vectors/persistedIndex';
import { createQdrantVectorStore } from '../../lib/vectors/qdrantVectorStore';
import type { VectorStore } from '../../lib/vectors/vectorStore';
import { unitVectors, vectorStoreContract } from '../contract/vectorStore.contract';
import { knownError } from '../../api/errors';
import { freePort, holdPort } from '../support/ports';
import { indexWhateverTheSize, qdrantCall, testQdrantUrl, type QdrantCollectionInfo } from '../support/qdrant';
import { createTestDatabase } from '../support/testStack';

async function embeddedStack() {
  const database = await createTestDatabase();
  const db = createDb(database.url, 5);
  await migrateLatest(db);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  const objectsDir = path.join(dataDir, 'objects');
  const objects = createLocalObjectStore(objectsDir);
  const rows = createVectorPointRows(db);
  return {
    db,
    rows,
    objects,
    objectsDir,
    /** A worker's store: publishes its index to the object store (the test says when, through publishPending). */
    writer: (quietMs = 60_000, writerRows: PointRows = rows, exactSearchMaxPoints?: number) =>
      createEmbeddedVectorStore({ rows: writerRows, exactSearchMaxPoints, persistence: { objects, publish: { scratchDir: path.join(dataDir, 'tmp'), quietMs, maxDelayMs: 120_000 } } }),
    /** An API process's store: loads what workers published, then replays newer rows from `readerRows`. */
    reader: (readerRows: PointRows = rows, onError?: (error: unknown) => void) => createEmbeddedVectorStore({ rows: readerRows, persistence: { objects, onError } }),
    async cleanup() {
      await db.destroy();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function withEmbeddedStack(test: (stack: Awaited<ReturnType<typeof embeddedStack>>) => Promise<void>): Promise<void> {
  const stack = await embeddedStack();
  try {
    await test(stack);
  } finally {
    await stack.cleanup();
  }
}

/** Sample points: `count` unit vectors and fresh ids. */
function sample(count: number, dim: number, seed: number) {
  const vectors = unitVectors(count, dim, seed);
  return { vectors, ids: vectors.map(() => randomUUID()) };
}

/** `rows` that record where each catch-up started, to tell a loaded index (replay from its seq) from a rebuild (replay from 0). */
function recordingRows(rows: PointRows) {
  const replays: Array<{ after: string; rows: number }> = [];
  return {
    replays,
    rows: {
      ...rows,
      async changesAfter(...args: Parameters<PointRows['changesAfter']>) {
        const changes = await rows.changesAfter(...args);
        if (args[2] > 0) replays.push({ after: args[1], rows: changes?.changes.length ?? 0 });
        return changes;
      },
    } satisfies PointRows,
  };
}

const points = (ids: string[], vectors: Float32Array[], from: number, to: number) => ids.slice(from, to).map((id, i) => ({ id, vector: vectors[from + i] }));
/** Two stores write the first 400 points at once, 20 at a time: the first store points 0-199, the second 200-399. */
const writeHalves = (stores: Array<{ upsert: VectorStore['upsert'] }>, ids: string[], vectors: Float32Array[]) =>
  Promise.all(
    stores.map(async (store, half) => {
      for (let i = half * 200; i < (half + 1) * 200; i += 20) await store.upsert('c', points(ids, vectors, i, i + 20));
    }),
  );
const snapshotFiles = (objectsDir: string, collection: string) =>
  fs.readdirSync(path.join(objectsDir, 'vector-indexes', collection), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.usearch'));

describe('embedded vector store (Postgres + usearch)', () => {
  vectorStoreContract(async () => {
    const stack = await embeddedStack();
    const store = stack.writer(10);
    return { store, cleanup: async () => (await store.close(), await stack.cleanup()) };
  });

  it('lets another process see new points at once, without any published index', async () => {
    await withEmbeddedStack(async (stack) => {
    const writer = createEmbeddedVectorStore({ rows: stack.rows });
    const reader = createEmbeddedVectorStore({ rows: stack.rows });
    await writer.ensureCollection('c', 16);
    const { vectors, ids } = sample(40, 16, 3);
    await writer.upsert('c', points(ids, vectors, 0, 20));
    expect((await reader.searchMany('c', [vectors[5]], 1))[0][0].id).toBe(ids[5]);
    await writer.upsert('c', points(ids, vectors, 20, 40));
    await writer.delete('c', [ids[5]]);
    expect((await reader.searchMany('c', [vectors[30]], 1))[0][0].id).toBe(ids[30]);
    expect((await reader.searchMany('c', [vectors[5]], 3))[0].map((hit) => hit.id)).not.toContain(ids[5]);
    await reader.close();
    await writer.close();
    });
  });

  it('a worker publishes its index; a fresh API store loads it and replays only rows written after it (upserts and deletions)', async () => {
    await withEmbeddedStack(async (stack) => {
    const writer = stack.writer();
    await writer.ensureCollection('c', 16);
    const { vectors, ids } = sample(2600, 16, 3);
    for (let i = 0; i < 2400; i += 800) await writer.upsert('c', points(ids, vectors, i, i + 800));
    await writer.publishPending();
    expect(snapshotFiles(stack.objectsDir, 'c')).toHaveLength(1);

    // Committed after the publication: a reader must still see them.
    await writer.upsert('c', points(ids, vectors, 2400, 2600));
    await writer.delete('c', [ids[10]]);
    await writer.upsert('c', [{ id: ids[11], vector: vectors[2599].map((value) => -value) }]);

    const recorded = recordingRows(stack.rows);
    const reader = stack.reader(recorded.rows);
    expect((await reader.searchMany('c', [vectors[2450]], 1))[0][0].id).toBe(ids[2450]);
    expect((await reader.searchMany('c', [vectors[10]], 3))[0].map((hit) => hit.id)).not.toContain(ids[10]);
    expect((await reader.searchMany('c', [vectors[11]], 3))[0].map((hit) => hit.id)).not.toContain(ids[11]);
    // The published points are found (the index is approximate: nearly every one is its own nearest).
    const published = Array.from({ length: 100 }, (_, i) => 24 * i + 12);
    const nearest = await reader.searchMany('c', published.map((i) => vectors[i]), 1);
    expect(nearest.filter((hits, q) => hits[0]?.id === ids[published[q]]).length).toBeGreaterThanOrEqual(98);
    // It never rebuilt: its first catch-up started after the published seq and read only the 202 newer writes.
    expect(recorded.replays[0].after).not.toBe('0');
    expect(recorded.replays[0].rows).toBe(202);
    await reader.close();
    await writer.close();
    });
  });

  it('publishes by itself once writes pause, and keeps only the current and the previous snapshot', async () => {
    await withEmbeddedStack(async (stack) => {
    const writer = stack.writer(50);
    await writer.ensureCollection('c', 8);
    const { vectors, ids } = sample(40, 8, 9);
    const head = path.join(stack.objectsDir, 'vector-indexes', 'c', 'head.json');
    const publishedSeq = () => (fs.existsSync(head) ? (JSON.parse(fs.readFileSync(head, 'utf8')) as { lastSeq: string; points: number }) : undefined);
    for (let round = 0; round < 4; round++) {
      await writer.upsert('c', points(ids, vectors, round * 10, round * 10 + 10));
      const deadline = Date.now() + 10_000;
      while (publishedSeq()?.points !== round * 10 + 10 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(publishedSeq()?.points).toBe(round * 10 + 10);
    }
    // The head is written before the snapshot it retires is removed: wait for the publication to end.
    await writer.publishPending();
    expect(snapshotFiles(stack.objectsDir, 'c')).toHaveLength(2);
    await writer.close();
    });
  });

  it('a worker searches a view of what it published once writes pause, and loads the whole index again only to publish newer writes', async () => {
    await withEmbeddedStack(async (stack) => {
    const opened: Array<{ mode: string; points: number; replayedRows: number }> = [];
    const writer = createEmbeddedVectorStore({
      rows: stack.rows,
      persistence: {
        objects: stack.objects,
        publish: { scratchDir: path.join(stack.objectsDir, '..', 'tmp'), quietMs: 60_000, maxDelayMs: 120_000 },
        onLoaded: (_, { mode, points, replayedRows }) => opened.push({ mode, points, replayedRows }),
      },
    });
    await writer.ensureCollection('c', 16);
    const { vectors, ids } = sample(1300, 16, 5);
    await writer.upsert('c', points(ids, vectors, 0, 1200));
    await writer.publishPending();
    // Nearly every point is its own nearest (the indexes are approximate, the one beside a view too).
    const found = async (from: number, to: number, store = writer) => {
      const hits = await store.searchMany('c', vectors.slice(from, to), 1);
      return hits.filter((nearest, q) => nearest[0]?.id === ids[from + q]).length;
    };
    expect(await found(0, 100)).toBeGreaterThanOrEqual(90);
    // The view replaced the index it was saved from: each point is found once.
    const nearest10 = (await writer.searchMany('c', vectors.slice(0, 20), 10)).map((hits) => hits.map((hit) => hit.id));
    expect(nearest10.filter((ids10) => new Set(ids10).size === 10)).toHaveLength(20);

    // Written while the worker searches its view: found beside it, the deleted point no more.
    await writer.upsert('c', points(ids, vectors, 1200, 1300));
    await writer.delete('c', [ids[7]]);
    expect(await found(1200, 1300)).toBeGreaterThanOrEqual(90);
    expect((await writer.searchMany('c', [vectors[7]], 3))[0].map((hit) => hit.id)).not.toContain(ids[7]);

    await writer.publishPending();
    // Built from the rows once; then the published 1,200 loaded whole to publish the 101 newer writes.
    expect(opened).toEqual([
      { mode: 'view', points: 0, replayedRows: 1200 },
      { mode: 'load', points: 1200, replayedRows: 101 },
    ]);
    expect(await found(1200, 1300)).toBeGreaterThanOrEqual(90);
    const reader = stack.reader();
    expect(await found(1200, 1300, reader)).toBeGreaterThanOrEqual(90);
    expect((await reader.searchMany('c', [vectors[7]], 3))[0].map((hit) => hit.id)).not.toContain(ids[7]);
    await reader.close();
    await writer.close();
    });
  });

  it('an API store whose replayed points outgrow its published base starts again from a newer published index', async () => {
    await withEmbeddedStack(async (stack) => {
      const writer = stack.writer();
      await writer.ensureCollection('c', 8);
      // A base larger than a collection searched exactly (whose published index is never loaded), then 5,200 more rows.
      const base = EXACT_SEARCH_MAX_POINTS + 100;
      const { vectors, ids } = sample(base + 5200, 8, 61);
      await writer.upsert('c', points(ids, vectors, 0, base));
      await writer.publishPending();
      const recorded = recordingRows(stack.rows);
      const reader = stack.reader(recorded.rows);
      expect((await reader.searchMany('c', [vectors[50]], 1))[0][0].id).toBe(ids[50]);

      for (let i = base; i < base + 5200; i += 1300) await writer.upsert('c', points(ids, vectors, i, i + 1300));
      await writer.publishPending();
      const head = JSON.parse(fs.readFileSync(path.join(stack.objectsDir, 'vector-indexes', 'c', 'head.json'), 'utf8')) as { lastSeq: string };
      recorded.replays.length = 0;
      expect((await reader.searchMany('c', [vectors[base + 5100]], 1))[0][0].id).toBe(ids[base + 5100]);
      // It replayed the 5,200 rows, found them past what a base may carry, and loaded the newer published index.
      expect(recorded.replays.map((replay) => replay.after).at(-1)).toBe(head.lastSeq);
      expect((await reader.searchMany('c', [vectors[7]], 1))[0][0].id).toBe(ids[7]);
      await reader.close();
      await writer.close();
    });
  });

  it('never loads the index of a collection made again (a new generation), even if its files are left behind', async () => {
    await withEmbeddedStack(async (stack) => {
    const writer = stack.writer();
    await writer.ensureCollection('c', 16);
    // Both generations are larger than a collection searched exactly (whose published index is never loaded).
    const size = EXACT_SEARCH_MAX_POINTS + 100;
    const [old, fresh] = [unitVectors(size, 16, 21), unitVectors(size, 16, 22)];
    const [oldIds, freshIds] = [old.map(() => randomUUID()), fresh.map(() => randomUUID())];
    const onlyFresh = (hits: Array<{ id: string }>) => hits.length === 30 && hits.every((hit) => (freshIds as string[]).includes(hit.id));
    await writer.upsert('c', points(oldIds, old, 0, size));
    await writer.publishPending();
    // Dropped and made again by a process without the object store: the old head stays.
    await stack.rows.dropCollection('c');
    await stack.rows.createCollection('c', 16);
    await stack.rows.upsert('c', freshIds.map((id, i) => ({ id, vector: Buffer.from(fresh[i].buffer) })));
    expect(fs.existsSync(path.join(stack.objectsDir, 'vector-indexes', 'c', 'head.json'))).toBe(true);

    const recorded = recordingRows(stack.rows);
    const reader = stack.reader(recorded.rows);
    const [hits] = await reader.searchMany('c', [old[0]], 30);
    expect(onlyFresh(hits)).toBe(true);
    expect(recorded.replays[0].after).toBe('0');
    await reader.close();

    // The worker's own index of the old generation is dropped too, and its next publication replaces the head.
    await writer.upsert('c', [{ id: freshIds[0], vector: fresh[0] }]);
    await writer.publishPending();
    const [writerHits] = await writer.searchMany('c', [old[0]], 30);
    expect(onlyFresh(writerHits)).toBe(true);
    const again = recordingRows(stack.rows);
    const loaded = stack.reader(again.rows);
    expect((await loaded.searchMany('c', [fresh[7]], 1))[0][0].id).toBe(freshIds[7]);
    expect(again.replays[0].after).not.toBe('0');
    await loaded.close();
    await writer.close();

    // dropCollection through a store removes the published index with the points.
    await writer.dropCollection('c');
    expect(fs.existsSync(path.join(stack.objectsDir, 'vector-indexes', 'c', 'head.json'))).toBe(false);
    expect(snapshotFiles(stack.objectsDir, 'c')).toHaveLength(0);
    });
  });

  it('two workers publishing the same collection leave a head that loads; readers replay whatever it lacks', async () => {
    await withEmbeddedStack(async (stack) => {
    const [first, second] = [stack.writer(), stack.writer()];
    await first.ensureCollection('c', 16);
    const { vectors, ids } = sample(400, 16, 31);
    await writeHalves([first, second], ids, vectors);
    // The first publishes what it has seen, then the second (newer): last writer wins.
    await Promise.all([first.publishPending(), second.publishPending()]);
    await first.upsert('c', points(ids, vectors, 0, 1));
    await first.publishPending();

    const reader = stack.reader();
    const answers = await reader.searchMany('c', vectors, 1);
    expect(answers.map(([hit]) => hit.id)).toEqual(ids);
    await Promise.all([reader.close(), first.close(), second.close()]);
    });
  });

  it('of two workers writing one collection, one replays every row into the index it publishes; the other adds only what that index lacks', async () => {
    await withEmbeddedStack(async (stack) => {
      // Indexes however small (a small collection is otherwise replayed from its rows by every process).
      const [a, b] = [recordingRows(stack.rows), recordingRows(stack.rows)];
      const [first, second] = [stack.writer(60_000, a.rows, 0), stack.writer(60_000, b.rows, 0)];
      await first.ensureCollection('c', 16);
      const { vectors, ids } = sample(410, 16, 37);
      await writeHalves([first, second], ids, vectors);
      const replayed = () => [...a.replays, ...b.replays].reduce((sum, replay) => sum + replay.rows, 0);
      // Both publish at once: one holds the lock and replays the 400 rows; the other leaves them to it.
      await Promise.all([first.publishPending(), second.publishPending()]);
      expect(replayed()).toBe(400);
      expect(await readHead(stack.objects, 'c')).toEqual(expect.objectContaining({ points: 400 }));

      // Later rows of the second are published from the index published before, not from every row again.
      const [aBefore, bBefore] = [a.replays.length, b.replays.length];
      await second.upsert('c', points(ids, vectors, 400, 410));
      await second.publishPending();
      expect(await readHead(stack.objects, 'c')).toEqual(expect.objectContaining({ points: 410 }));
      const later = [...a.replays.slice(aBefore), ...b.replays.slice(bBefore)];
      expect(later.length).toBeGreaterThan(0);
      expect(later.every((replay) => replay.after !== '0')).toBe(true);
      expect(later.reduce((sum, replay) => sum + replay.rows, 0)).toBeLessThanOrEqual(20);

      const reader = stack.reader();
      expect((await reader.searchMany('c', vectors, 1)).map(([hit]) => hit.id)).toEqual(ids);
      await Promise.all([reader.close(), first.close(), second.close()]);
    });
  });

  it('holds a collection\'s publication for one publisher, without leaving a connection idle in a transaction meanwhile', async () => {
    await withEmbeddedStack(async (stack) => {
      const idleInTransaction = async () =>
        (await stack.db.raw("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'")).rows[0].n;
      const seen: Array<{ second: boolean; other: boolean; idle: number }> = [];
      const published = await stack.rows.whilePublishing('c', async () => {
        const second = await stack.rows.whilePublishing('c', async () => undefined);
        const other = await stack.rows.whilePublishing('d', async () => undefined);
        seen.push({ second, other, idle: await idleInTransaction() });
      });
      expect(published).toBe(true);
      expect(seen).toEqual([{ second: false, other: true, idle: 0 }]);
      // Let go once done, also when the publication fails.
      await expect(stack.rows.whilePublishing('c', async () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
      expect(await stack.rows.whilePublishing('c', async () => undefined)).toBe(true);
    });
  });

  it('rebuilds from the rows, and says so, when the published files are gone', async () => {
    await withEmbeddedStack(async (stack) => {
    const writer = stack.writer();
    await writer.ensureCollection('c', 8);
    const { vectors, ids } = sample(50, 8, 41);
    await writer.upsert('c', points(ids, vectors, 0, 50));
    await writer.publishPending();
    for (const file of snapshotFiles(stack.objectsDir, 'c')) fs.rmSync(path.join(stack.objectsDir, 'vector-indexes', 'c', file));
    const errors: unknown[] = [];
    const reader = stack.reader(stack.rows, (error) => errors.push(error));
    expect((await reader.searchMany('c', [vectors[49]], 1))[0][0].id).toBe(ids[49]);
    expect(errors).toHaveLength(1);
    await reader.close();
    await writer.close();
    });
  });

  it('commits writes to a collection in seq order, so a reader never steps over a row that commits late', async () => {
    const stack = await embeddedStack();
    let release = () => {};
    try {
      await stack.rows.createCollection('c', 4);
      const [a, b] = unitVectors(2, 4, 51);
      const [idA, idB] = [randomUUID(), randomUUID()];
      // A slow writer (another worker) takes its seq first and commits last.
      const held = new Promise<void>((resolve) => (release = resolve));
      let wrote!: () => void;
      const written = new Promise<void>((resolve) => (wrote = resolve));
      const slow = writeInSeqOrder(stack.db, 'c', async (trx) => {
        await trx('vector_points').insert({ collection: 'c', id: idA, vector: vectorToBytes(a) });
        wrote();
        await held;
      });
      await written;
      const fast = stack.rows.upsert('c', [{ id: idB, vector: vectorToBytes(b) }]);
      const waiting = async () => (await stack.db.raw("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0].n as number;
      for (const deadline = Date.now() + 10_000; (await waiting()) === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await waiting()).toBe(1);

      // Neither is visible yet; had the second committed first, this catch-up would have moved past the first's seq for good.
      const reader = createEmbeddedVectorStore({ rows: stack.rows });
      expect(await reader.searchMany('c', [a, b], 1)).toEqual([[], []]);
      release();
      await Promise.all([slow, fast]);
      const [[nearA], [nearB]] = await reader.searchMany('c', [a, b], 1);
      expect([nearA.id, nearB.id]).toEqual([idA, idB]);
      await reader.close();
    } finally {
      release();
      await stack.cleanup();
    }
  });

  it('searches a small collection exactly: the nearest of every point, as comparing with all of them finds, until it outgrows the limit', async () => {
    await withEmbeddedStack(async (stack) => {
      const writer = stack.writer();
      await writer.ensureCollection('c', 32);
      const { vectors, ids } = sample(EXACT_SEARCH_MAX_POINTS + 200, 32, 71);
      const small = EXACT_SEARCH_MAX_POINTS;
      await writer.upsert('c', points(ids, vectors, 0, small));
      await writer.delete('c', [ids[3]]);
      const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);
      const bruteForce = (query: Float32Array, k: number) =>
        ids
          .slice(0, small)
          .map((id, i) => ({ id, similarity: cosine(query, vectors[i]) }))
          .filter(({ id }) => id !== ids[3])
          .sort((a, b) => b.similarity - a.similarity)
          .slice(0, k)
          .map(({ id }) => id);
      const queries = vectors.slice(0, 300);
      const answers = await writer.searchMany('c', queries, 10);
      expect(answers.map((hits) => hits.map((hit) => hit.id))).toEqual(queries.map((query) => bruteForce(query, 10)));
      expect(answers[5][0].distance).toBeCloseTo(0, 5);
      // A reader that finds a small published index replays the rows instead, and searches them exactly too.
      await writer.publishPending();
      const reader = stack.reader();
      expect((await reader.searchMany('c', [vectors[700]], 10))[0].map((hit) => hit.id)).toEqual(bruteForce(vectors[700], 10));
      // Past the limit the index takes over, and every point is still found.
      await writer.upsert('c', points(ids, vectors, small, ids.length));
      expect((await reader.searchMany('c', [vectors[small + 150]], 1))[0][0].id).toBe(ids[small + 150]);
      expect((await reader.searchMany('c', [vectors[20]], 1))[0][0].id).toBe(ids[20]);
      await reader.close();
      await writer.close();
    });
  });

  it('replays more writes than one catch-up batch holds (5,000)', async () => {
    await withEmbeddedStack(async (stack) => {
    const writer = stack.writer();
    const reader = stack.reader();
    await writer.ensureCollection('c', 8);
    const { vectors, ids } = sample(5200, 8, 7);
    for (let i = 0; i < ids.length; i += 2600) await writer.upsert('c', ids.slice(i, i + 2600).map((id, j) => ({ id, vector: vectors[i + j] })));
    expect((await reader.searchMany('c', [vectors[5199]], 1))[0][0].id).toBe(ids[5199]);
    await reader.close();
    await writer.close();
    });
  });

  it('catches up with Postgres in one query, shared by concurrent searches, each seeing every point written before it asked', async () => {
    await withEmbeddedStack(async (stack) => {
    const rows = createVectorPointRows(stack.db);
    let lookups = 0;
    // While `hold` is set, a catch-up's query has answered but the catch-up waits: it stays under way for as long as the test wants.
    let hold: { answered(): void; release: Promise<void> } | undefined;
    const counted = {
      ...rows,
      async changesAfter(...args: Parameters<typeof rows.changesAfter>) {
        lookups++;
        const changes = await rows.changesAfter(...args);
        const held = hold;
        if (held) {
          held.answered();
          await held.release;
        }
        return changes;
      },
    };
    const writer = stack.writer();
    const reader = stack.reader(counted);
    await writer.ensureCollection('c', 16);
    const { vectors, ids } = sample(60, 16, 5);
    const write = (from: number, to: number) => writer.upsert('c', ids.slice(from, to).map((id, i) => ({ id, vector: vectors[from + i] })));
    const search = (from: number, to: number) => Promise.all(vectors.slice(from, to).map((vector) => reader.searchMany('c', [vector], 1)));
    const nearest = (answers: Awaited<ReturnType<typeof search>>) => answers.map(([hits]) => hits[0].id);
    // A collection this small is searched exactly: a search that made the catch-up finds every point written before it asked.
    const expectSeen = (answers: Awaited<ReturnType<typeof search>>, written: string[]) => expect(nearest(answers)).toEqual(written);
    await write(0, 20);
    await reader.searchMany('c', [vectors[0]], 1);

    // Searches arriving together, none under way: one query serves them all.
    lookups = 0;
    await write(20, 40);
    expectSeen(await search(20, 40), ids.slice(20, 40));
    expect(lookups).toBe(1);

    // A catch-up under way (its query answered before the next write) cannot serve searches that
    // arrive after that write: they queue exactly one more, which they all share.
    lookups = 0;
    let answered!: () => void;
    let release!: () => void;
    const queried = new Promise<void>((resolve) => (answered = resolve));
    hold = { answered, release: new Promise<void>((resolve) => (release = resolve)) };
    const first = reader.searchMany('c', [vectors[0]], 1);
    await queried;
    hold = undefined;
    await write(40, 60);
    const later = search(40, 60);
    release();
    expect((await first)[0][0].id).toBe(ids[0]);
    expectSeen(await later, ids.slice(40, 60));
    expect(lookups).toBe(2);
    await reader.close();
    await writer.close();
    });
  });
});

// A real Qdrant server, started by globalSetup when there is a binary; without one this suite is not registered (globalSetup says so).
const qdrantUrl = testQdrantUrl();
if (qdrantUrl) {
  describe('Qdrant vector store (a real server)', () => {
    vectorStoreContract(async () => ({
      store: createQdrantVectorStore({ url: qdrantUrl }),
      cleanup: async () => undefined,
    }));

    it("says why Qdrant refused a request, in Qdrant's words", async () => {
      const store = createQdrantVectorStore({ url: qdrantUrl });
      const missing = `contract_${randomUUID().replace(/-/g, '')}`;
      await expect(store.upsert(missing, [{ id: randomUUID(), vector: unitVectors(1, 8)[0] }])).rejects.toThrow(
        new RegExp(`^Qdrant refused upsert of ${missing}: 404 .*${missing}.*doesn't exist`),
      );
      await store.ensureCollection(missing, 8);
      await expect(store.upsert(missing, [{ id: 'not-a-uuid', vector: unitVectors(1, 8)[0] }])).rejects.toThrow(/^Qdrant refused upsert of .*: 400 .*not-a-uuid/);
      await store.dropCollection(missing);
    });

    it('makes collections with int8 scalar quantization, brings a float32 collection to it on first use, and takes it off under none', async () => {
      const collection = `quantized_${randomUUID().replace(/-/g, '')}`;
      const quantizationOf = async () => (await qdrantCall<QdrantCollectionInfo>(qdrantUrl, 'GET', `/collections/${collection}`)).config.quantization_config;
      const float32 = createQdrantVectorStore({ url: qdrantUrl, quantization: 'none' });
      const int8 = createQdrantVectorStore({ url: qdrantUrl });
      await float32.ensureCollection(collection, 8);
      expect(await quantizationOf()).toBeNull();
      const points = unitVectors(300, 8).map((vector) => ({ id: randomUUID(), vector }));
      await float32.upsert(collection, points);
      const before = await float32.searchMany(collection, [points[0].vector], 5);

      await int8.ensureCollection(collection, 8);
      expect(await quantizationOf()).toEqual({ scalar: { type: 'int8', quantile: 0.99, always_ram: true } });
      await indexWhateverTheSize(qdrantUrl, collection);
      // Re-scored with the float32 vectors: the same neighbours at the same distances.
      const after = await int8.searchMany(collection, [points[0].vector], 5);
      expect(after[0].map((hit) => hit.id)).toEqual(before[0].map((hit) => hit.id));
      after[0].forEach((hit, i) => expect(hit.distance).toBeCloseTo(before[0][i].distance, 5));
      expect(await int8.count(collection)).toBe(300);

      await float32.ensureCollection(collection, 8);
      expect(await quantizationOf()).toBeNull();
      await int8.dropCollection(collection);
    });
  });
}

describe('Qdrant vector store, the server unreachable', () => {
  it.each(['refuses connections', 'never answers', 'closes connections'] as const)(
    'fails within its timeout as an unreachable service (503) when the server %s, instead of hanging',
    async (behaviour) => {
      const port = await freePort();
      const held = behaviour === 'refuses connections' ? undefined : await holdPort(port, behaviour === 'never answers' ? 'silent' : 'drop');
      try {
        const store = createQdrantVectorStore({ url: `http://127.0.0.1:${port}`, timeoutMs: 500 });
        const started = Date.now();
        const error = await store.count('c').then(() => undefined, (failure: unknown) => failure);
        expect(Date.now() - started).toBeLessThan(5000);
        expect(error).toEqual(expect.objectContaining({ message: expect.stringMatching(/^Qdrant did not answer count of c/) }));
        expect(knownError(error)).toMatchObject({ status: 503 });
      } finally {
        await held?.release();
      }
    },
  );
});
