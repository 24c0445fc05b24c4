import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createDb, migrateLatest } from '../../db/connection';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { createQdrantVectorStore } from '../../lib/vectors/qdrantVectorStore';
import { unitVectors, vectorStoreContract } from '../contract/vectorStore.contract';
import { knownError } from '../../api/errors';
import { freePort, holdPort } from '../support/ports';
import { testQdrantUrl } from '../support/qdrant';
import { createTestDatabase } from '../support/testStack';

async function embeddedStack() {
  const database = await createTestDatabase();
  const db = createDb(database.url, 5);
  await migrateLatest(db);
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  return {
    db,
    cacheDir,
    async cleanup() {
      await db.destroy();
      await database.drop();
      fs.rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

describe('embedded vector store (Postgres + usearch)', () => {
  vectorStoreContract(async () => {
    const stack = await embeddedStack();
    const store = createEmbeddedVectorStore({ rows: createVectorPointRows(stack.db), cacheDir: stack.cacheDir });
    return { store, cleanup: async () => (await store.close(), await stack.cleanup()) };
  });

  it('lets another process see new points and reuses its on-disk cache after a restart', async () => {
    const stack = await embeddedStack();
    try {
      const writer = createEmbeddedVectorStore({ rows: createVectorPointRows(stack.db), cacheDir: stack.cacheDir });
      const reader = createEmbeddedVectorStore({ rows: createVectorPointRows(stack.db), cacheDir: path.join(stack.cacheDir, 'reader') });
      await writer.ensureCollection('c', 16);
      const vectors = unitVectors(2500, 16, 3);
      const ids = vectors.map(() => randomUUID());
      await writer.upsert('c', ids.slice(0, 2400).map((id, i) => ({ id, vector: vectors[i] })));
      expect((await reader.searchMany('c', [vectors[5]], 1))[0][0].id).toBe(ids[5]);

      await writer.upsert('c', ids.slice(2400).map((id, i) => ({ id, vector: vectors[2400 + i] })));
      expect((await reader.searchMany('c', [vectors[2450]], 1))[0][0].id).toBe(ids[2450]);
      await reader.close();
      expect(fs.existsSync(path.join(stack.cacheDir, 'reader', 'c.usearch'))).toBe(true);

      // A fresh instance (a restarted process) starts from the cache and still answers correctly.
      const restarted = createEmbeddedVectorStore({ rows: createVectorPointRows(stack.db), cacheDir: path.join(stack.cacheDir, 'reader') });
      await writer.delete('c', [ids[10]]);
      const [hits] = await restarted.searchMany('c', [vectors[10]], 3);
      expect(hits.map((hit) => hit.id)).not.toContain(ids[10]);
      expect((await restarted.searchMany('c', [vectors[2499]], 1))[0][0].id).toBe(ids[2499]);
      await restarted.close();
      await writer.close();
    } finally {
      await stack.cleanup();
    }
  });

  it('replays more writes than one catch-up batch holds (5,000)', async () => {
    const stack = await embeddedStack();
    try {
      const writer = createEmbeddedVectorStore({ rows: createVectorPointRows(stack.db), cacheDir: stack.cacheDir });
      const reader = createEmbeddedVectorStore({ rows: createVectorPointRows(stack.db), cacheDir: path.join(stack.cacheDir, 'reader') });
      await writer.ensureCollection('c', 8);
      const vectors = unitVectors(5200, 8, 7);
      const ids = vectors.map(() => randomUUID());
      for (let i = 0; i < ids.length; i += 2600) await writer.upsert('c', ids.slice(i, i + 2600).map((id, j) => ({ id, vector: vectors[i + j] })));
      expect((await reader.searchMany('c', [vectors[5199]], 1))[0][0].id).toBe(ids[5199]);
      await reader.close();
      await writer.close();
    } finally {
      await stack.cleanup();
    }
  });

  it('catches up with Postgres in one query, shared by concurrent searches, each seeing every point written before it asked', async () => {
    const stack = await embeddedStack();
    try {
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
      const writer = createEmbeddedVectorStore({ rows, cacheDir: stack.cacheDir });
      const reader = createEmbeddedVectorStore({ rows: counted, cacheDir: path.join(stack.cacheDir, 'reader') });
      await writer.ensureCollection('c', 16);
      const vectors = unitVectors(60, 16, 5);
      const ids = vectors.map(() => randomUUID());
      const write = (from: number, to: number) => writer.upsert('c', ids.slice(from, to).map((id, i) => ({ id, vector: vectors[from + i] })));
      const search = (from: number, to: number) => Promise.all(vectors.slice(from, to).map((vector) => reader.searchMany('c', [vector], 1)));
      const nearest = (answers: Awaited<ReturnType<typeof search>>) => answers.map(([hits]) => hits[0].id);
      await write(0, 20);
      await reader.searchMany('c', [vectors[0]], 1);

      // Searches arriving together, none under way: one query serves them all.
      lookups = 0;
      await write(20, 40);
      expect(nearest(await search(20, 40))).toEqual(ids.slice(20, 40));
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
      expect(nearest(await later)).toEqual(ids.slice(40, 60));
      expect(lookups).toBe(2);
      await reader.close();
      await writer.close();
    } finally {
      await stack.cleanup();
    }
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
