import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createDb, migrateLatest } from '../../db/connection';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { createQdrantVectorStore } from '../../lib/vectors/qdrantVectorStore';
import { unitVectors, vectorStoreContract } from '../contract/vectorStore.contract';
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
      const counted = { ...rows, changesAfter: (...args: Parameters<typeof rows.changesAfter>) => (lookups++, rows.changesAfter(...args)) };
      const writer = createEmbeddedVectorStore({ rows, cacheDir: stack.cacheDir });
      const reader = createEmbeddedVectorStore({ rows: counted, cacheDir: path.join(stack.cacheDir, 'reader') });
      await writer.ensureCollection('c', 16);
      const vectors = unitVectors(40, 16, 5);
      const ids = vectors.map(() => randomUUID());
      await writer.upsert('c', ids.slice(0, 20).map((id, i) => ({ id, vector: vectors[i] })));
      await reader.searchMany('c', [vectors[0]], 1);
      lookups = 0;

      await writer.upsert('c', ids.slice(20).map((id, i) => ({ id, vector: vectors[20 + i] })));
      const answers = await Promise.all(vectors.slice(20).map((vector) => reader.searchMany('c', [vector], 1)));
      expect(answers.map(([hits]) => hits[0].id)).toEqual(ids.slice(20));
      // One catch-up was under way or queued for the first search; all the others shared the next.
      expect(lookups).toBeLessThanOrEqual(2);
      await reader.close();
      await writer.close();
    } finally {
      await stack.cleanup();
    }
  });
});

// Runs whenever a Qdrant server is configured (docker compose, CI with Qdrant); there is none to start here.
if (process.env.QDRANT_URL) {
  describe('Qdrant vector store', () => {
    vectorStoreContract(async () => ({
      store: createQdrantVectorStore({ url: process.env.QDRANT_URL!, apiKey: process.env.QDRANT_API_KEY }),
      cleanup: async () => undefined,
    }));
  });
}
