/**
 * `npm run bench:first-search [-- N]`: the first visual search after an API restart, at N media
 * (default 100,000) with sampled 1280-d vectors (as bench:explore), with the index the worker
 * published through the object store vs without it (the API builds the HNSW index on the request, as
 * before), in the same run. Each case is a fresh API process (`npm run api`); the worker side is this
 * process's store configured as a worker's; and with the published index, the first search sent only once the API
 * has warmed the index by itself (as it does when it starts). Results go to bench/results/first-search/first-search-<N>-<date>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { createDb, migrateLatest } from '../../db/connection';
import { ensureDefaultTenant } from '../../db/repositories/users';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { ensureDatabase } from '../../lib/embedded/postgres';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { indexPersistence } from '../../lib/vectors/createVectorStore';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { readHead, snapshotKeys } from '../../lib/vectors/persistedIndex';
import { imageCollection } from '../../lib/vectors/vectorStore';
import { startApiProcess } from '../../test/support/apiProcess';
import { benchMachine, say, writeReport, runBench, withScratchPostgres } from './common';
import { seedSyntheticDataset, writeSyntheticImageVectors } from './syntheticDataset';

const count = Number(process.argv[2] ?? 100_000);
const DIM = 1280;
/** Rows committed after the last publication in the third case (a worker stopped before publishing them). */
const NEWER_ROWS = 1000;

const seconds = (from: number) => (Date.now() - from) / 1000;

async function timedGet(url: string): Promise<number> {
  const started = process.hrtime.bigint();
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * A fresh API process on `dataDir`: its start, its first visual search (timed) and a second one. The first search is
 * sent as soon as the API answers, or (`afterWarming`) once the API has warmed the dataset's index by itself.
 */
async function firstSearchAfterStart(env: Record<string, string>, dataDir: string, datasetId: string, anchors: string[], afterWarming = false) {
  const started = Date.now();
  const api = await startApiProcess({ ...env, DATA_DIR: dataDir }, 180_000);
  try {
    const startSeconds = seconds(started);
    while (afterWarming && !api.logs().some((entry) => entry.msg === 'vector index ready')) await setTimeout(50);
    const warmedSeconds = afterWarming ? seconds(started) : undefined;
    const search = (anchor: string) => `${api.url}/api/v1/explore/${datasetId}?entity_type=IMAGES&anchor_type=MEDIA&anchor_media_id=${anchor}`;
    const firstMs = await timedGet(search(anchors[0]));
    const secondMs = await timedGet(search(anchors[1]));
    // The store's own account of the first search's catch-up: what it loaded and replayed, in how long.
    const ready = api.logs().find((entry) => entry.msg === 'vector index ready');
    const round = (value: unknown) => Math.round(Number(value));
    return {
      api_start_seconds: startSeconds,
      ...(warmedSeconds === undefined ? {} : { warmed_after_seconds: warmedSeconds }),
      first_visual_search_ms: Math.round(firstMs),
      second_visual_search_ms: Math.round(secondMs),
      index: ready && { loaded_points: ready.points, load_ms: round(ready.loadMs), replayed_rows: ready.replayedRows, replay_ms: round(ready.replayMs) },
    };
  } finally {
    await api.stop();
  }
}

async function main(): Promise<void> {
  say(`bench:first-search: ${count} media on ${os.cpus()[0].model}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`);
  await withScratchPostgres('first-search', async (postgres, scratch) => {
    const databaseUrl = await ensureDatabase(postgres.url, 'bench_first_search');
    const env = { LOG_LEVEL: 'info', DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: '127.0.0.1:1', PIPELINE_PORT: '0' };
    const workerDataDir = path.join(scratch, 'data');
    const config = loadConfig({ ...process.env, ...env, DATA_DIR: workerDataDir });
    const db = createDb(databaseUrl, 4);
    const rows = createVectorPointRows(db);
    let seeded;
    const worker: Record<string, number> = {};
    try {
      await migrateLatest(db);
      await ensureDefaultTenant(db, config.admin);
      let started = Date.now();
      seeded = await seedSyntheticDataset(db, count, DIM);
      say(`  rows: ${count} media in ${seconds(started).toFixed(1)} s`);

      // The worker's side: its store writes the points (catching its index up and publishing as it goes), then publishes the rest.
      const objects = createObjectStore(config);
      const store = createEmbeddedVectorStore({ rows, persistence: indexPersistence(config, objects, 'worker') });
      started = Date.now();
      const ids = await writeSyntheticImageVectors(db, store, { datasetId: seeded.datasetId, versionId: seeded.versionId, dim: DIM });
      worker.write_vectors_seconds = seconds(started);
      started = Date.now();
      await store.publishPending();
      worker.final_catch_up_and_publish_seconds = seconds(started);
      await store.close();
      const head = await readHead(objects, imageCollection(seeded.datasetId));
      if (!head) throw new Error('the worker published no index');
      await objects.withLocalFile(snapshotKeys(imageCollection(seeded.datasetId), head.generation, head.snapshot).index, async (file) => {
        worker.published_index_mib = Math.round(fs.statSync(file).size / 2 ** 20);
      });
      say(`  worker: vectors written in ${worker.write_vectors_seconds.toFixed(1)} s, last catch-up + publication ${worker.final_catch_up_and_publish_seconds.toFixed(1)} s, index ${worker.published_index_mib} MiB`);
      seeded = { ...seeded, anchors: [ids[0], ids[Math.floor(ids.length / 2)]], ids };
    } finally {
      await db.destroy();
    }

    const cases: Record<string, Awaited<ReturnType<typeof firstSearchAfterStart>> & { newer_rows: number }> = {};
    const run = async (name: string, dataDir: string, newerRows: number, afterWarming = false) => {
      cases[name] = { newer_rows: newerRows, ...(await firstSearchAfterStart(env, dataDir, seeded.datasetId, seeded.anchors, afterWarming)) };
      say(`  ${name.padEnd(44)} first visual search ${String(cases[name].first_visual_search_ms).padStart(6)} ms, second ${cases[name].second_visual_search_ms} ms`);
    };
    await run('published index', workerDataDir, 0);
    await run('published index, searched once the API warmed it', workerDataDir, 0, true);
    // The peer: a DATA_DIR whose object store holds no published index, so the API builds it on the request (as before).
    await run('no published index (builds on the request)', path.join(scratch, 'data-peer'), 0);

    // Rows committed after the publication (a worker stopped before publishing them): the API loads, then replays them.
    const newer = createDb(databaseUrl, 2);
    try {
      const plain = createEmbeddedVectorStore({ rows: createVectorPointRows(newer) });
      const moved = await plain.get(imageCollection(seeded.datasetId), seeded.ids.slice(-NEWER_ROWS));
      await plain.upsert(imageCollection(seeded.datasetId), [...moved].map(([id, vector]) => ({ id, vector: vector.map((value, i) => (i === 0 ? -value : value)) })));
      await plain.close();
    } finally {
      await newer.destroy();
    }
    await run(`published index + ${NEWER_ROWS} newer rows to replay`, workerDataDir, NEWER_ROWS);

    const withIndex = cases['published index'].first_visual_search_ms;
    const without = cases['no published index (builds on the request)'].first_visual_search_ms;
    const report = {
      date: new Date().toISOString(),
      machine: { ...benchMachine(), load_average_at_start: os.loadavg() },
      media: count,
      dim: DIM,
      vectors: 'image: 1000 random unit centres in 1280-d plus uniform noise (0.3), normalised (as bench:explore)',
      worker,
      cases,
      ratio_without_over_with_first_search: Math.round((without / withIndex) * 10) / 10,
    };
    say(`  first visual search: ${withIndex} ms with the published index vs ${without} ms without: ${report.ratio_without_over_with_first_search}x`);
    writeReport('first-search', `first-search-${count}`, report);
  });
}

runBench(main);
