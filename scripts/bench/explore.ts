/**
 * `npm run bench:explore [-- N]`: builds a READY dataset of N media (default 100,000) straight in
 * Postgres (rows, 5 clustering levels, issues, captions, labels, tags) with sampled vectors
 * (1,000 random unit centres in the image model's 1280 dimensions plus noise, normalised; caption
 * vectors from the real text encoder), then measures p50/p95 latency of Explore queries through the
 * real HTTP API. Results go to bench/results/explore-<N>-<date>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiServer } from '../../api/server';
import { createDb } from '../../db/connection';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { benchMachine, freePort, percentile, say, writeReport } from './common';
import { seedSyntheticDataset, writeSyntheticVectors, WORDS } from './syntheticDataset';

const count = Number(process.argv[2] ?? 100_000);
const DIM = 1280;
const RUNS = 40;

async function timedMs(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function main(): Promise<void> {
  say(`bench:explore: ${count} media on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-explore-'));
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
  const databaseUrl = await ensureDatabase(postgres.url, 'bench_explore');
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    DATA_DIR: path.join(scratch, 'data'),
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    API_HOST: '127.0.0.1',
    API_PORT: '0',
  });
  const api = await startApiServer(config, createLogger('bench', 'silent'));
  const db = createDb(databaseUrl, 4);
  try {
    let started = Date.now();
    const { datasetId, versionId, tagId } = await seedSyntheticDataset(db, count, DIM);
    say(`  rows: ${count} media, 5 clustering levels, issues, labels, tags in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    started = Date.now();
    const store = createEmbeddedVectorStore({ rows: createVectorPointRows(db) });
    const { ids, captions } = await writeSyntheticVectors(db, store, { datasetId, versionId, dim: DIM, modelsDir: config.models.dir });
    await store.close();
    say(`  vectors: ${ids.length} image (sampled) + ${captions} caption (real text encoder) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const base = `http://127.0.0.1:${api.port}/api/v1/explore/${datasetId}?entity_type=IMAGES`;
    const vql = (filters: unknown[]) => `&vql=${encodeURIComponent(JSON.stringify(filters))}`;
    const get = async (url: string) => {
      const response = await fetch(url);
      if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    };
    const indexBuild = {
      visual_first_query_ms: await timedMs(() => get(`${base}&anchor_type=MEDIA&anchor_media_id=${ids[0]}`)),
      semantic_first_query_ms: await timedMs(() => get(`${base}${vql([{ text: { op: 'semantic', value: 'a dog on the beach' } }])}`)),
    };
    say(`  first visual query (builds the HNSW index in the API process): ${(indexBuild.visual_first_query_ms / 1000).toFixed(1)} s`);

    const queries: Record<string, (i: number) => string> = {
      'plain page 0': () => base,
      'plain page 20, threshold 2': () => `${base}&threshold=2&page_number=20`,
      'caption (semantic)': (i) => `${base}&caption=${encodeURIComponent(`a ${WORDS[i % 20]} outside`)}`,
      'vql text fts': (i) => `${base}${vql([{ text: { op: 'fts', value: `${WORDS[i % 20]} ${WORDS[(i + 3) % 20]}` } }])}`,
      'vql text semantic': (i) => `${base}${vql([{ text: { op: 'semantic', value: `a photo of a ${WORDS[i % 20]}` } }])}`,
      'visual (MEDIA anchor)': (i) => `${base}&anchor_type=MEDIA&anchor_media_id=${ids[(i * 977) % ids.length]}`,
      'vql labels': (i) => `${base}${vql([{ labels: { op: 'one_of', value: [WORDS[i % 20]] } }])}`,
      'vql tags': () => `${base}${vql([{ tags: { op: 'is', value: [tagId] } }])}`,
      'vql issues': (i) => `${base}${vql([{ issues: { op: 'issue', value: ['dark', 'blur', 'duplicates'][i % 3], mode: 'in' } }])}`,
      'vql duplicates': () => `${base}${vql([{ duplicates: { op: 'duplicates', value: 0.95 } }])}`,
      'vql uniqueness': () => `${base}${vql([{ uniqueness: { op: 'uniqueness', value: 0.9 } }])}`,
    };
    const results: Array<{ query: string; p50_ms: number; p95_ms: number }> = [];
    say(`latency over ${RUNS} runs each (after 3 warm-up runs):`);
    for (const [name, url] of Object.entries(queries)) {
      for (let i = 0; i < 3; i++) await get(url(i));
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await timedMs(() => get(url(i))));
      times.sort((a, b) => a - b);
      const row = { query: name, p50_ms: percentile(times, 0.5), p95_ms: percentile(times, 0.95) };
      results.push(row);
      say(`  ${name.padEnd(28)} p50 ${row.p50_ms.toFixed(1).padStart(7)} ms   p95 ${row.p95_ms.toFixed(1).padStart(7)} ms`);
    }
    const report = {
      date: new Date().toISOString(),
      machine: benchMachine(),
      media: count,
      vectors: 'image: 1000 random unit centres in 1280-d plus uniform noise (0.3), normalised; captions: real all-MiniLM-L6-v2 embeddings',
      index_build: indexBuild,
      queries: results,
    };
    writeReport(`explore-${count}`, report);
  } finally {
    await db.destroy();
    await api.close();
    await postgres.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
