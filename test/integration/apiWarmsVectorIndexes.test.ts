import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { startApiServer } from '../../api/server';
import { createDb, migrateLatest } from '../../db/connection';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { createVectorStore } from '../../lib/vectors/createVectorStore';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { unitVectors } from '../contract/vectorStore.contract';
import { createTestDatabase } from '../support/testStack';

it('a starting API loads every published vector index and catches up with newer rows before any search asks', async () => {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-warm-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    TASK_QUEUE: `test-${path.basename(database.url)}`,
    API_PORT: '0',
    API_HOST: '127.0.0.1',
    PIPELINE_PORT: '0',
  });
  const db = createDb(database.url, 3);
  const lines: Array<{ msg: string; collection?: string; points?: number; replayedRows?: number }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  try {
    await migrateLatest(db);
    // A worker wrote and published 1,500 points; 20 more were written after (by a store that publishes nothing).
    const worker = createVectorStore(config, createVectorPointRows(db), { objects: createObjectStore(config), role: 'worker' });
    const vectors = unitVectors(1520, 16, 9);
    await worker.ensureCollection('warm_me', 16);
    await worker.upsert('warm_me', vectors.slice(0, 1500).map((vector) => ({ id: randomUUID(), vector })));
    await worker.ensureCollection('empty_one', 8);
    await worker.close();
    const lateWriter = createEmbeddedVectorStore({ rows: createVectorPointRows(db) });
    await lateWriter.upsert('warm_me', vectors.slice(1500).map((vector) => ({ id: randomUUID(), vector })));
    await lateWriter.close();

    const api = await startApiServer(config, logger);
    try {
      await api.warmed;
      const ready = lines.filter((line) => line.msg === 'vector index ready');
      expect(ready.find((line) => line.collection === 'warm_me')).toMatchObject({ points: 1500, replayedRows: 20 });
      expect(ready.find((line) => line.collection === 'empty_one')).toMatchObject({ points: 0, replayedRows: 0 });
      expect(lines.filter((line) => /not warmed/.test(line.msg))).toEqual([]);
    } finally {
      await api.close();
    }
  } finally {
    await db.destroy();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);
