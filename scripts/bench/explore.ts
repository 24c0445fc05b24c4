/**
 * `npm run bench:explore [-- N] [--keep] [--reuse DIR] [--label L] [--queries-only]`: builds a READY dataset of N media
 * (default 100,000) straight in Postgres (rows, 5 clustering levels, issues, captions, labels, tags)
 * with sampled vectors (1,000 random unit centres in the image model's 1280 dimensions plus noise,
 * normalised; caption vectors from the real text encoder), then:
 * - starts the real API as a process of its own and measures p50/p95 latency of Explore queries
 *   through HTTP, and the API's RSS (started, after its first visual search loaded the published
 *   index, after the queries, peak);
 * - stops it and runs the worker's clustering stage (analyzeDataset: kNN graph, clustering at five
 *   thresholds, neighbour scores, writes) in a process of its own (analyzeStage.ts): its time and peak RSS.
 * --queries-only leaves the clustering stage out (bench:scale measures it with bench:analysis);
 * --keep leaves the scratch directory (Postgres data, published indexes) in place and says where;
 * --reuse DIR measures again on a kept one without seeding, after what a task's end does (vacuumMedia,
 * analyzeExploredTables: a bench that analysed the kept dataset again ran its activities, not the task's end). Results go to
 * bench/results/explore/explore-<N>[-<label>]-<date>.json and .md.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDb, migrateLatest } from '../../db/connection';
import { ensureDefaultTenant } from '../../db/repositories/users';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { loadConfig } from '../../lib/config';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { indexPersistence } from '../../lib/vectors/createVectorStore';
import { projectRoot } from '../../lib/projectRoot';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import type { AnalyzeStageResult } from './analyzeStage';
import { benchMachine, endLikeATask, freePort, percentile, say, writeReport, runBench } from './common';
import { httpGet } from './loadClients';
import { memoryOf, mib, runStage, startNode, waitFor } from './nodeProcesses';
import { seedSyntheticDataset, writeSyntheticVectors, WORDS } from './syntheticDataset';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    label: { type: 'string' },
    'queries-only': { type: 'boolean', default: false },
  },
});
const count = Number(positionals[0] ?? 100_000);
const DIM = 1280;
const RUNS = 40;
const DATABASE = 'bench_explore';

interface Seeded {
  datasetId: string;
  versionId: string;
  tagId: string;
  setup: { rows_seconds: number; vectors_seconds: number; final_publish_seconds: number; captions: number };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** GETs `url` (no timeout: without a published index the first visual search builds one) and times it; throws unless 200. */
async function timedGet(url: string): Promise<number> {
  const started = process.hrtime.bigint();
  const { status } = await httpGet(agent, url, 0);
  if (status !== '200') throw new Error(`${url}: ${status}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function seed(env: Record<string, string>, scratch: string): Promise<Seeded> {
  const config = loadConfig({ ...process.env, ...env });
  const db = createDb(env.DATABASE_URL, 4);
  try {
    await migrateLatest(db);
    await ensureDefaultTenant(db, config.admin);
    let started = Date.now();
    const { datasetId, versionId, tagId } = await seedSyntheticDataset(db, count, DIM);
    const rowsSeconds = (Date.now() - started) / 1000;
    say(`  rows: ${count} media, 5 clustering levels, issues, labels, tags in ${rowsSeconds.toFixed(1)} s`);
    started = Date.now();
    // The bench writes the vectors as a worker does: its store catches its index up and publishes it as it goes.
    const store = createEmbeddedVectorStore({ rows: createVectorPointRows(db), persistence: indexPersistence(config, createObjectStore(config), 'worker') });
    const { ids, captions } = await writeSyntheticVectors(db, store, { datasetId, versionId, dim: DIM, modelsDir: config.models.dir });
    const vectorsSeconds = (Date.now() - started) / 1000;
    started = Date.now();
    await store.close();
    const publishSeconds = (Date.now() - started) / 1000;
    say(`  vectors: ${ids.length} image (sampled) + ${captions} caption (real text encoder) in ${vectorsSeconds.toFixed(1)} s; final catch-up and publication ${publishSeconds.toFixed(1)} s`);
    await db.raw('VACUUM ANALYZE');
    const setup = { rows_seconds: rowsSeconds, vectors_seconds: vectorsSeconds, final_publish_seconds: publishSeconds, captions };
    const seeded = { datasetId, versionId, tagId, setup };
    fs.writeFileSync(path.join(scratch, 'seeded.json'), JSON.stringify(seeded));
    return seeded;
  } finally {
    await db.destroy();
  }
}

async function mediaIds(databaseUrl: string, versionId: string): Promise<string[]> {
  const db = createDb(databaseUrl, 1);
  try {
    return await db('media').where({ version_id: versionId }).orderBy('id').pluck('id');
  } finally {
    await db.destroy();
  }
}

/** The tables that grow with the media count, as stored (indexes and TOAST included), in MiB. */
const SIZED_TABLES = ['vector_points', 'media', 'cluster_members', 'clusters', 'media_issues', 'media_labels', 'media_tags'];

async function databaseSizes(databaseUrl: string): Promise<Record<string, number>> {
  const db = createDb(databaseUrl, 1);
  try {
    const { rows } = await db.raw(
      `SELECT t AS name, pg_total_relation_size(t::regclass) AS bytes FROM unnest(?::text[]) t
       UNION ALL SELECT 'whole database', pg_database_size(current_database())`,
      [SIZED_TABLES],
    );
    return Object.fromEntries(rows.map((row: { name: string; bytes: string }) => [row.name, Math.round(Number(row.bytes) / 2 ** 20)]));
  } finally {
    await db.destroy();
  }
}

type QueryRow = { query: string; p50_ms: number; p95_ms: number };

/** The real API in a process of its own: index build, query latencies and its memory. */
async function measureApi(env: Record<string, string>, logs: string, seeded: Seeded, ids: string[]) {
  const port = freePort();
  const api = startNode(projectRoot(), 'api/server.ts', { ...env, API_HOST: '127.0.0.1', API_PORT: String(port) }, path.join(logs, 'api.log'));
  try {
    const apiUrl = `http://127.0.0.1:${port}/api/v1`;
    await waitFor('API', api, async () => (await fetch(`${apiUrl}/datasets`)).status === 200, 180_000);
    const pid = api.child.pid!;
    const rss = { started: mib(memoryOf(pid).rss), after_first_search: 0, after_queries: 0, peak: 0 };

    const base = `${apiUrl}/explore/${seeded.datasetId}?entity_type=IMAGES`;
    const vql = (filters: unknown[]) => `&vql=${encodeURIComponent(JSON.stringify(filters))}`;
    const firstSearch = {
      visual_first_query_ms: await timedGet(`${base}&anchor_type=MEDIA&anchor_media_id=${ids[0]}`),
      semantic_first_query_ms: await timedGet(`${base}${vql([{ text: { op: 'semantic', value: 'a dog on the beach' } }])}`),
    };
    rss.after_first_search = mib(memoryOf(pid).rss);
    say(`  first visual query (loads the published index): ${(firstSearch.visual_first_query_ms / 1000).toFixed(1)} s; API RSS ${rss.after_first_search} MiB`);

    const queries: Record<string, (i: number) => string> = {
      'plain page 0': () => base,
      'plain page 20, threshold 2': () => `${base}&threshold=2&page_number=20`,
      'caption (semantic)': (i) => `${base}&caption=${encodeURIComponent(`a ${WORDS[i % 20]} outside`)}`,
      'vql text fts': (i) => `${base}${vql([{ text: { op: 'fts', value: `${WORDS[i % 20]} ${WORDS[(i + 3) % 20]}` } }])}`,
      'vql text semantic': (i) => `${base}${vql([{ text: { op: 'semantic', value: `a photo of a ${WORDS[i % 20]}` } }])}`,
      'visual (MEDIA anchor)': (i) => `${base}&anchor_type=MEDIA&anchor_media_id=${ids[(i * 977) % ids.length]}`,
      'vql labels': (i) => `${base}${vql([{ labels: { op: 'one_of', value: [WORDS[i % 20]] } }])}`,
      'vql tags': () => `${base}${vql([{ tags: { op: 'is', value: [seeded.tagId] } }])}`,
      'vql issues': (i) => `${base}${vql([{ issues: { op: 'issue', value: ['dark', 'blur', 'duplicates'][i % 3], mode: 'in' } }])}`,
      'vql duplicates': () => `${base}${vql([{ duplicates: { op: 'duplicates', value: 0.95 } }])}`,
      'vql uniqueness': () => `${base}${vql([{ uniqueness: { op: 'uniqueness', value: 0.9 } }])}`,
    };
    const results: QueryRow[] = [];
    say(`latency over ${RUNS} runs each (after 3 warm-up runs):`);
    for (const [name, url] of Object.entries(queries)) {
      for (let i = 0; i < 3; i++) await timedGet(url(i));
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await timedGet(url(i)));
      times.sort((a, b) => a - b);
      const row = { query: name, p50_ms: percentile(times, 0.5), p95_ms: percentile(times, 0.95) };
      results.push(row);
      say(`  ${name.padEnd(28)} p50 ${row.p50_ms.toFixed(1).padStart(7)} ms   p95 ${row.p95_ms.toFixed(1).padStart(7)} ms`);
    }
    const memory = memoryOf(pid);
    rss.after_queries = mib(memory.rss);
    rss.peak = mib(memory.peak);
    say(`  API RSS: started ${rss.started} MiB, after the first visual search ${rss.after_first_search}, after the queries ${rss.after_queries}, peak ${rss.peak}`);
    return { first_search: firstSearch, queries: results, api_rss_mib: rss };
  } finally {
    agent.destroy();
    await api.stop('SIGTERM', 60_000);
  }
}

/** The worker's clustering stage in a process of its own (analyzeStage.ts). */
function measureClustering(env: Record<string, string>, logs: string, datasetId: string): Promise<AnalyzeStageResult> {
  return runStage<AnalyzeStageResult>('scripts/bench/analyzeStage.ts', env, path.join(logs, 'analyze.log'), [datasetId]);
}

function markdown(report: Record<string, unknown> & { queries: QueryRow[]; api_rss_mib: Record<string, number>; clustering?: AnalyzeStageResult; clustering_error?: string }): string {
  const machine = benchMachine();
  const lines = [
    `# bench:explore at ${count.toLocaleString('en-US')} media (${String(report.date).slice(0, 10)})`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}; shared with other jobs (load average at start ${(report.load_average_at_start as number[]).map((n) => n.toFixed(1)).join(' / ')}).`,
    `Vectors: ${report.vectors}.`,
    '',
    '| query | p50 ms | p95 ms |',
    '|---|---:|---:|',
    ...report.queries.map((row) => `| ${row.query} | ${row.p50_ms.toFixed(1)} | ${row.p95_ms.toFixed(1)} |`),
    '',
    `API process RSS (MiB): started ${report.api_rss_mib.started}, after the first visual search ${report.api_rss_mib.after_first_search}, after the queries ${report.api_rss_mib.after_queries}, peak ${report.api_rss_mib.peak}.`,
    `First visual search (loads the published index): ${((report.first_search as { visual_first_query_ms: number }).visual_first_query_ms / 1000).toFixed(1)} s.`,
    `Postgres (MiB, indexes included): ${Object.entries(report.database_mib as Record<string, number>).map(([name, size]) => `${name} ${size}`).join(', ')}.`,
    '',
  ];
  const c = report.clustering;
  if (c) {
    lines.push(
      `Clustering stage (analyzeDataset, own process): index ready (the published index loaded) ${c.index_ready_seconds.toFixed(1)} s; ` +
        `kNN graph (k = 11) ${c.knn_graph_seconds.toFixed(0)} s; clustering + scores + writes ${c.cluster_and_write_seconds.toFixed(0)} s; ` +
        `total ${c.total_seconds.toFixed(0)} s; ${c.edges.toLocaleString('en-US')} edges; RSS ${c.rss_mib.index_ready} MiB with the index, ` +
        `${c.rss_mib.knn_graph_done} after the graph (JS heap ${c.heap_used_mib_at_knn_graph_done}), peak ${c.rss_mib.peak} MiB.`,
    );
  } else if (report.clustering_error) {
    lines.push(`Clustering stage failed: ${report.clustering_error}`);
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  say(`bench:explore: ${count} media on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const loadAverageAtStart = os.loadavg();
  const scratch = args.reuse ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-explore-'));
  const logs = path.join(scratch, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
  try {
    const databaseUrl = await ensureDatabase(postgres.url, DATABASE);
    const env = {
      LOG_LEVEL: 'info',
      DATA_DIR: path.join(scratch, 'data'),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      PIPELINE_PORT: '0',
      MODELS_DIR: loadConfig(process.env).models.dir,
    };
    const seeded: Seeded = args.reuse
      ? JSON.parse(fs.readFileSync(path.join(scratch, 'seeded.json'), 'utf8'))
      : await seed(env, scratch);
    if (args.reuse) say(`  the state a task's end leaves: ${(await endLikeATask(databaseUrl)).toFixed(1)} s`);
    const ids = await mediaIds(databaseUrl, seeded.versionId);
    if (ids.length !== count) throw new Error(`the dataset has ${ids.length} media, not ${count}`);

    const api = await measureApi(env, logs, seeded, ids);
    const report: Record<string, unknown> & typeof api & { date: string; clustering?: AnalyzeStageResult; clustering_error?: string } = {
      date: new Date().toISOString(),
      machine: benchMachine(),
      load_average_at_start: loadAverageAtStart,
      media: count,
      vectors: 'image: 1000 random unit centres in 1280-d plus uniform noise (0.3), normalised; captions: real all-MiniLM-L6-v2 embeddings',
      api: 'separate process (node --import tsx api/server.ts); RSS from /proc/<pid>/status',
      setup: seeded.setup,
      database_mib: await databaseSizes(databaseUrl),
      ...api,
    };
    const stem = `explore-${count}${args.label ? `-${args.label}` : ''}`;
    // The query figures are kept even if the clustering stage fails.
    writeReport('explore', stem, report, markdown(report));

    if (args['queries-only']) return;
    say('clustering stage (analyzeDataset) in its own process:');
    try {
      report.clustering = await measureClustering(env, logs, seeded.datasetId);
      const c = report.clustering;
      say(
        `  index ready ${c.index_ready_seconds.toFixed(1)} s; kNN graph ${c.knn_graph_seconds.toFixed(1)} s; clustering + writes ${c.cluster_and_write_seconds.toFixed(1)} s; ` +
          `${c.edges} edges; RSS peak ${c.rss_mib.peak} MiB`,
      );
    } catch (error) {
      report.clustering_error = (error as Error).message;
      say(`  failed: ${report.clustering_error}`);
    }
    report.load_average_at_end = os.loadavg();
    writeReport('explore', stem, report, markdown(report));
  } finally {
    await postgres.stop();
    if (args.keep || args.reuse) say(`scratch kept: ${scratch} (--reuse ${scratch})`);
    else fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
