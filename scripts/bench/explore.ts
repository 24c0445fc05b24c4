/**
 * `npm run bench:explore [-- N]`: builds a READY dataset of N media (default 100,000) straight in
 * Postgres (rows, 5 clustering levels, issues, captions, labels, tags) with sampled vectors
 * (1,000 random unit centres in the image model's 1280 dimensions plus noise, normalised; caption
 * vectors from the real text encoder), then measures p50/p95 latency of Explore queries through the
 * real HTTP API. Results go to bench/results/explore-<N>-<date>.json.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiServer } from '../../api/server';
import { createDb } from '../../db/connection';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { loadTextEncoder } from '../../lib/ml/textEncoder';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { captionCollection, datasetCollection } from '../../lib/vectors/vectorStore';
import { benchMachine, freePort, say, writeReport } from './common';

const count = Number(process.argv[2] ?? 100_000);
const DIM = 1280;
const RUNS = 40;

const WORDS = ['cat', 'dog', 'car', 'tree', 'beach', 'mountain', 'cup', 'coffee', 'bicycle', 'city', 'river', 'bird', 'flower', 'house', 'boat', 'child', 'street', 'snow', 'forest', 'bridge'];

function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
}

async function timedMs(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

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
    const admin = await db('users').first();
    const workspace = await db('workspaces').first();
    const datasetId = randomUUID();
    await db('datasets').insert({
      id: datasetId, workspace_id: workspace.id, display_name: 'bench', status_new: 'READY', progress: 100,
      owner_id: admin.id, n_images: count, embedding_config: JSON.stringify({ model: 'bench', dim: DIM }),
    });
    await db('dataset_members').insert({ dataset_id: datasetId, user_id: admin.id, role: 'owner' });

    let started = Date.now();
    await db.raw(
      `INSERT INTO media (id, dataset_id, kind, batch_id, file_name, blob_sha256, thumb_sha256, width, height, format,
                          uniqueness_score, embedded, caption, caption_embedded)
       SELECT gen_random_uuid(), ?, 'IMAGE', ?, 'img_' || g || '.jpg', md5(g::text) || md5(g::text), md5(g::text) || md5(g::text),
              640, 480, 'jpeg', (g * 7919 % 1000) / 1000.0, true,
              CASE WHEN g % 3 = 0 THEN 'a ' || (?::text[])[1 + g % 20] || ' near a ' || (?::text[])[1 + (g / 20) % 20] END, false
       FROM generate_series(1, ?) g`,
      [datasetId, randomUUID(), WORDS, WORDS, count],
    );
    const sizes = [1, 3, 10, 30, 100];
    for (let threshold = 0; threshold < 5; threshold++) {
      await db.raw(
        `WITH numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM media WHERE dataset_id = ?),
              grouped AS (SELECT id, (n - 1) / ? AS g FROM numbered),
              made AS (INSERT INTO clusters (id, dataset_id, threshold, n_images, n_videos, n_frames, size)
                       SELECT gen_random_uuid(), ?, ?, count(*), 0, 0, count(*) FROM grouped GROUP BY g RETURNING id, size)
         SELECT 1`,
        [datasetId, sizes[threshold], datasetId, threshold],
      );
      await db.raw(
        `WITH numbered AS (SELECT id, (row_number() OVER (ORDER BY id) - 1) / ? AS g FROM media WHERE dataset_id = ?),
              ordered AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS g FROM clusters WHERE dataset_id = ? AND threshold = ?)
         INSERT INTO cluster_members (dataset_id, threshold, media_id, cluster_id)
         SELECT ?, ?, numbered.id, ordered.id FROM numbered JOIN ordered USING (g)`,
        [sizes[threshold], datasetId, datasetId, threshold, datasetId, threshold],
      );
    }
    await db.raw(
      `INSERT INTO media_issues (media_id, dataset_id, issue_type, confidence, details)
       SELECT id, dataset_id, t.issue, 0.8, CASE WHEN t.issue = 'duplicates' THEN jsonb_build_object('similarity', 0.9 + random() / 10) END
       FROM (SELECT id, dataset_id, row_number() OVER () AS n FROM media WHERE dataset_id = ?) m
       JOIN (VALUES ('dark', 20), ('blur', 33), ('duplicates', 50)) AS t(issue, every) ON m.n % t.every = 0`,
      [datasetId],
    );
    await db.raw(
      `INSERT INTO media_labels (media_id, dataset_id, label, source)
       SELECT id, dataset_id, (?::text[])[1 + n % 20], 'bench' FROM (SELECT id, dataset_id, row_number() OVER () AS n FROM media WHERE dataset_id = ?) m WHERE n % 5 = 0`,
      [WORDS, datasetId],
    );
    const [tag] = await db('tags').insert({ dataset_id: datasetId, name: 'picked' }).returning('id');
    await db.raw(
      `INSERT INTO media_tags (media_id, tag_id, dataset_id)
       SELECT id, ?, dataset_id FROM (SELECT id, dataset_id, row_number() OVER () AS n FROM media WHERE dataset_id = ?) m WHERE n % 10 = 0`,
      [tag.id, datasetId],
    );
    await db.raw('ANALYZE');
    say(`  rows: ${count} media, 5 clustering levels, issues, labels, tags in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    started = Date.now();
    const store = createEmbeddedVectorStore({ db, cacheDir: path.join(scratch, 'bench-vectors') });
    const ids: string[] = (await db('media').where({ dataset_id: datasetId }).orderBy('id').pluck('id'));
    const random = seeded(42);
    const centres = Array.from({ length: 1000 }, () => Float32Array.from({ length: DIM }, random));
    await store.ensureCollection(datasetCollection(datasetId), DIM);
    for (let i = 0; i < ids.length; i += 1000) {
      await store.upsert(datasetCollection(datasetId), ids.slice(i, i + 1000).map((id, j) => {
        const centre = centres[(i + j) % centres.length];
        const vector = centre.map((value) => value + random() * 0.3);
        const norm = Math.hypot(...vector);
        return { id, vector: vector.map((value) => value / norm) };
      }));
    }
    const captions: Array<{ id: string; caption: string }> = await db('media').where({ dataset_id: datasetId }).whereNotNull('caption').select('id', 'caption');
    const text = await loadTextEncoder(config.models.dir, os.availableParallelism());
    await store.ensureCollection(captionCollection(datasetId), text.dim);
    for (let i = 0; i < captions.length; i += 256) {
      const batch = captions.slice(i, i + 256);
      const vectors = await text.encode(batch.map((row) => row.caption));
      await store.upsert(captionCollection(datasetId), batch.map((row, j) => ({ id: row.id, vector: vectors[j] })));
    }
    await text.close();
    await store.close();
    say(`  vectors: ${ids.length} image (sampled) + ${captions.length} caption (real text encoder) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

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
      'vql tags': () => `${base}${vql([{ tags: { op: 'is', value: [tag.id] } }])}`,
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
