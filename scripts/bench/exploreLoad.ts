/**
 * `npm run bench:explore-load [-- options]`: Explore under load. A READY dataset of --media synthetic
 * media (syntheticDataset.ts, sampled vectors as bench:explore makes them) in an embedded Postgres;
 * the real API and the real worker as separate processes (the API's RSS is read from
 * /proc/<pid>/status); --clients concurrent keep-alive clients in this process send a mix of Explore
 * queries for --seconds while an add_media batch of --batch real images runs on the same dataset, after the same
 * load for --warm-up-seconds without it (a running API has answers remembered; a fresh one has none): a closed
 * loop (each client asks again as soon as it has its answer: the most the service serves), or, with --rate R,
 * R requests a second at an even pace (the answer times at that load; loadClients.ts).
 * Reports requests/s, p50/p95/p99, errors by status, the API's RSS before and after, the batch's
 * duration, and the API's Postgres connections sampled during the load.
 *
 * Comparison in one run: --baseline-rev REV runs the same load, alternately, against an API and
 * worker whose Explore path (EXPLORE_PATH, its migrations included) is as it was at REV;
 * --baseline-env K=V sets variables for the baseline only (--env K=V for the current one), e.g.
 * DATABASE_POOL_MAX=10. Each variant has its own copy of the seeded database (CREATE DATABASE …
 * TEMPLATE), migrated by its own code, its own DATA_DIR and task queue. --rounds repeats the pair.
 * --profile records a CPU profile of each API (node --cpu-prof) and reports where the load window's
 * time went. Results go to bench/results/explore-load/explore-load-<media>-<date>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { createDb } from '../../db/connection';
import { ensureDefaultTenant } from '../../db/repositories/users';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import type { ManagedProcess } from '../../lib/embedded/process';
import { startTemporalDevServer } from '../../lib/embedded/temporal';
import { projectRoot } from '../../lib/projectRoot';
import { createLocalObjectStore } from '../../lib/storage/localObjectStore';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { captionCollection, imageCollection } from '../../lib/vectors/vectorStore';
import { benchMachine, filesForm, freePort, percentile, prepareImages, say, waitForNewestTask, withClient, writeReport, runBench } from './common';
import { summariseProfile, type ProfileSummary } from './cpuProfile';
import { runLoad, WINDOW_SECONDS, type LoadRequest, type LoadResult } from './loadClients';
import { memoryOf, mib, startNode, waitFor } from './nodeProcesses';
import { machineCpuSeconds, postmasterOf, processCpuSeconds, treeCpuSeconds } from './processCpu';
import { resetStatementStats, statementStats, withStatementStatsLoaded, type StatementRow } from './statementStats';
import { snapshotSources } from './sourceSnapshot';
import { seedSyntheticDataset, writeSyntheticVectors, WORDS } from './syntheticDataset';

/**
 * The files of Explore's own path; --baseline-rev takes these from the older commit. Modules Explore
 * shares with the rest of the API (access checks, URL signing, datasets) stay as they are.
 */
const EXPLORE_PATH = [
  'api/routes/explore.ts',
  'api/presenters/cluster.ts',
  'services/explore.ts',
  'services/semanticSearch.ts',
  'services/visualSearch.ts',
  'db/repositories/explore.ts',
  'db/repositories/media.ts',
  'db/migrations/20261128000000_clusters_page_order.ts',
  'lib/ml/rememberedQueries.ts',
  'lib/vectors/embeddedVectorStore.ts',
  'db/repositories/vectorPoints.ts',
  'services/exploreAnswers.ts',
  'db/repositories/exploreChanges.ts',
  'db/migrations/20261218400000_explore_changes_clustered.ts',
];
const DIM = 1280;
const WARM_UP_ROUNDS = 3;
/** The warm-up load's requests are numbered from here: the same mix as the load's, not the same requests. */
const WARM_UP_REQUESTS = 10_000_000;
/** Requests of each kind in the serial pass that measures CPU per request by kind. */
const KIND_PASS_REQUESTS = 24;

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: process.env.EXPLORE_LOAD_CLIENTS ?? '50' },
    rate: { type: 'string', default: process.env.EXPLORE_LOAD_RATE },
    'warm-up-seconds': { type: 'string', default: process.env.EXPLORE_LOAD_WARM_UP_SECONDS ?? '30' },
    seconds: { type: 'string', default: process.env.EXPLORE_LOAD_SECONDS ?? '60' },
    media: { type: 'string', default: process.env.EXPLORE_LOAD_MEDIA ?? '100000' },
    batch: { type: 'string', default: process.env.EXPLORE_LOAD_BATCH ?? '200' },
    rounds: { type: 'string', default: process.env.EXPLORE_LOAD_ROUNDS ?? '1' },
    'baseline-rev': { type: 'string', default: process.env.EXPLORE_LOAD_BASELINE_REV },
    'baseline-env': { type: 'string', multiple: true, default: [] },
    env: { type: 'string', multiple: true, default: [] },
    profile: { type: 'boolean', default: process.env.EXPLORE_LOAD_PROFILE === 'true' },
    label: { type: 'string', default: process.env.EXPLORE_LOAD_LABEL },
  },
});
const clients = Number(args.clients);
const seconds = Number(args.seconds);
const mediaCount = Number(args.media);
const batchSize = Number(args.batch);
const rounds = Number(args.rounds);
const warmUpSeconds = Number(args['warm-up-seconds']);
const rate = args.rate === undefined ? undefined : Number(args.rate);
if (rate !== undefined && !(rate > 0)) throw new Error(`--rate must be a positive number of requests a second, not ${args.rate}`);
const loadShape = rate ? `${rate} requests/s from ${clients} clients` : `${clients} clients`;

const envPairs = (pairs: string[]) => Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));

interface Variant {
  name: string;
  sourceDir: string;
  /** Its own database, DATA_DIR and task queue. */
  database: string;
  dataDir: string;
  /** Settings given on the command line. */
  env: Record<string, string>;
}

interface Phase {
  variant: string;
  round: number;
  warm_up: { first_visual_query_ms: number; first_caption_query_ms: number };
  /** The same load before add_media starts, other requests of the same mix (a running API has answers remembered). */
  warm_up_load: LoadResult['overall'] | null;
  api_rss_mib: { started: number; before_load: number; after_load: number; peak: number };
  load: LoadResult;
  add_media: { images: number; seconds: number; finished_during_load: boolean };
  /** The API's Postgres connections, sampled each second of the load. */
  api_db_connections: { samples: number; mean_active: number; max_active: number; mean_total: number };
  /** Postgres's execution time during the load window on the variant's database, by what the statements do. */
  postgres_statements: StatementRow[];
  /** CPU seconds used during the load window: by the API, Postgres, the worker, this process (the clients), and the machine. */
  cpu_seconds: { api: number; postgres: number; worker: number; clients: number; machine_busy: number; machine_capacity: number };
  /** The same CPU per request served during the load, in ms (API and Postgres: the figure the goal of 10 ms is about). */
  cpu_ms_per_request: { api: number; postgres: number; worker: number; api_and_postgres: number };
  /** The machine's load average (1 min) as the load started and ended: other jobs share its cores. */
  load_average: { start: number; end: number };
  /** Commits that changed what Explore reads during the load (each makes the API forget its answers); null without explore_changes. */
  explore_writes_during_load: number | null;
  /** Of those, the commits that changed clustered media (each makes the API forget its answers over them); null where not counted apart. */
  explore_clustered_writes_during_load: number | null;
  /** After the load, one request at a time, KIND_PASS_REQUESTS of each kind: CPU ms per request by process and kind. */
  cpu_ms_by_kind: Record<string, { api: number; postgres: number; api_and_postgres: number; wall_ms: number; answers: Record<string, number> }>;
  /** Each second of the load, the cores each process used (Postgres's also by whose connection; the machine: all of its processes). */
  cpu_by_second: Array<{ api: number; postgres: number; postgres_for_api: number; postgres_for_worker: number; worker: number; clients: number; machine: number }>;
  cpu_profile?: ProfileSummary;
  /** The API's own time for each Explore request (its request log), by when it ended, in the load's windows: what the clients' queue does not add. */
  api_answer_ms_by_window: Array<{ from_second: number; requests: number; p50_ms: number; p95_ms: number }>;
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  say(`bench:explore-load: ${loadShape} × ${seconds} s on ${mediaCount} media, add_media of ${batchSize}, on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-explore-load-'));
  const logs = path.join(scratch, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const variants: Variant[] = [];
  const variant = (name: string, env: Record<string, string>): Variant => ({
    name,
    sourceDir: path.join(scratch, name),
    database: `bench_explore_load_${name}`,
    dataDir: path.join(scratch, `data-${name}`),
    env,
  });
  const current = snapshotSources(path.join(scratch, 'current'));
  if (args['baseline-rev'] || args['baseline-env'].length > 0) {
    const rev = args['baseline-rev'];
    snapshotSources(path.join(scratch, 'baseline'), rev ? { rev, paths: EXPLORE_PATH } : undefined);
    variants.push(variant('baseline', envPairs(args['baseline-env'])));
  }
  variants.push(variant('current', envPairs(args.env)));
  const images = await prepareImages(batchSize * rounds * variants.length);

  const pgPort = freePort();
  let postgres = await startEmbeddedPostgres({ dataDir: scratch, port: pgPort });
  const temporal = await startTemporalDevServer({ dataDir: scratch, port: freePort(), namespace: 'default' });
  const [first, ...others] = variants;
  const databaseUrl = await ensureDatabase(postgres.url, first.database);
  const common = {
    LOG_LEVEL: 'info',
    TEMPORAL_ADDRESS: temporal.address,
    MODELS_DIR: path.join(projectRoot(), '.tools', 'models'),
    PIPELINE_PORT: '0',
  };
  const config = loadConfig({ ...process.env, ...common, DATABASE_URL: databaseUrl });
  const monitor = new Client({ connectionString: databaseUrl });
  const workers: ManagedProcess[] = [];
  try {
    const db = createDb(databaseUrl, 4);
    let seeded;
    const setup: Record<string, number> = {};
    try {
      // With the first variant's migrations: each API migrates its own copy further at start.
      await db.migrate.latest({ directory: path.join(first.sourceDir, 'db', 'migrations'), loadExtensions: ['.ts'] });
      await ensureDefaultTenant(db, config.admin);
      let started = Date.now();
      seeded = await seedSyntheticDataset(db, mediaCount, DIM);
      setup.rows_seconds = (Date.now() - started) / 1000;
      say(`  rows: ${mediaCount} media in ${setup.rows_seconds.toFixed(1)} s`);
      started = Date.now();
      const store = createEmbeddedVectorStore({ rows: createVectorPointRows(db), persistence: { objects: createLocalObjectStore(path.join(first.dataDir, 'objects')), publish: { scratchDir: path.join(scratch, 'tmp') } } });
      const { ids } = await writeSyntheticVectors(db, store, { datasetId: seeded.datasetId, versionId: seeded.versionId, dim: DIM, modelsDir: config.models.dir });
      setup.vectors_seconds = (Date.now() - started) / 1000;
      // The HNSW indexes are built once here and published in DATA_DIR's object store, where the APIs and workers load them.
      started = Date.now();
      const [anyVector] = (await store.get(imageCollection(seeded.datasetId), [ids[0]])).values();
      await store.searchMany(imageCollection(seeded.datasetId), [anyVector], 1);
      await store.searchMany(captionCollection(seeded.datasetId), [new Float32Array(384).fill(1 / Math.sqrt(384))], 1);
      await store.close();
      setup.index_build_seconds = (Date.now() - started) / 1000;
      say(`  vectors in ${setup.vectors_seconds.toFixed(1)} s, HNSW indexes built and cached in ${setup.index_build_seconds.toFixed(1)} s`);
      seeded = { ...seeded, ids };
    } finally {
      await db.destroy();
    }
    const { datasetId, tagId, ids } = seeded;
    for (const other of others) {
      await copyDatabase(postgres.url, first.database, other.database);
      fs.cpSync(path.join(first.dataDir, 'objects', 'vector-indexes'), path.join(other.dataDir, 'objects', 'vector-indexes'), { recursive: true });
    }
    // Statement statistics need their library loaded at start: a restart, with the data kept.
    postgres = await withStatementStatsLoaded(postgres, () => startEmbeddedPostgres({ dataDir: scratch, port: pgPort }));

    const envOf = (v: Variant, application: string) => ({
      ...common,
      DATA_DIR: v.dataDir,
      TASK_QUEUE: `bench-${v.name}`,
      DATABASE_URL: `${databaseUrl.replace(/[^/]*$/, v.database)}?application_name=${application}`,
      ...v.env,
    });
    for (const v of variants) {
      const log = path.join(logs, `worker-${v.name}.log`);
      const worker = startNode(v.sourceDir, 'workers/main.ts', envOf(v, `bench-worker-${v.name}`), log);
      workers.push(worker);
      await waitFor(`${v.name} worker`, worker, async () => fs.readFileSync(log, 'utf8').includes('worker running'), 180_000);
    }
    await monitor.connect();
    await monitor.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');

    const phases: Phase[] = [];
    let batch = 0;
    for (let round = 1; round <= rounds; round++) {
      for (const v of variants) {
        say(`${v.name}, round ${round}:`);
        const files = images.slice(batch * batchSize, ++batch * batchSize);
        const processes = { worker: workers[variants.indexOf(v)].child.pid!, postmaster: postmasterOf(path.join(scratch, 'postgres')) };
        phases.push(await runPhase({ variant: v, env: envOf(v, 'bench-api'), round, files, datasetId, tagId, ids, logs, monitor, processes }));
      }
    }

    const summary = variants.length === 2 ? compare(phases) : undefined;
    const report = {
      date: new Date().toISOString(),
      machine: benchMachine(),
      load_average_at_start: os.loadavg(),
      media: mediaCount,
      clients,
      offered_rate: rate ?? null,
      seconds,
      warm_up_seconds: warmUpSeconds,
      add_media_batch: batchSize,
      query_mix: QUERY_KINDS,
      api: 'separate process (node --import tsx api/server.ts, LOG_LEVEL=info); RSS from /proc/<pid>/status',
      sources: {
        commit: current.commit,
        uncommitted_files_in_checkout: current.dirty,
        baseline: others.length > 0 ? { rev: args['baseline-rev'] ?? null, files_from_rev: args['baseline-rev'] ? EXPLORE_PATH : [], env: first.env } : undefined,
        current_env: variants.at(-1)!.env,
      },
      setup,
      phases,
      comparison: summary,
    };
    // Runs comparing different things on the same day keep their own files.
    const label = args.label ?? (rate ? `rate${rate}` : args['baseline-rev'] ? `vs-${args['baseline-rev'].slice(0, 7)}` : args['baseline-env'].length > 0 ? `${args['baseline-env'].join('-')}-vs-${args.env.join('-')}` : '');
    writeReport('explore-load', `explore-load-${mediaCount}${label ? `-${label.replace(/[^A-Za-z0-9=._-]/g, '_')}` : ''}`, report, markdown(report));
  } finally {
    await monitor.end().catch(() => undefined);
    for (const worker of workers) await worker.stop('SIGTERM', 30_000);
    await temporal.stop();
    await postgres.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** The mix each client cycles through, equally weighted. */
const QUERY_KINDS = ['plain page 0', 'plain page n, threshold t', 'vql labels (and tags)', 'vql issues', 'vql uniqueness', 'vql text fts', 'visual (MEDIA anchor)', 'caption (semantic)'];

/**
 * A number in [0, 1) from request number `n` and draw `d`, the same on every run (mulberry32 of both), for requests
 * drawn from a spread rather than repeated.
 */
function draw(n: number, d: number): number {
  let t = (Math.imul(n, 0x9e3779b1) + Math.imul(d + 1, 0x85ebca77)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** One of `count` choices, the first ones more often (as people look at the first pages and the common words): u² spreads them as 1/√x. */
const skewed = (u: number, count: number) => Math.floor(u * u * count);

/**
 * Each kind's parameters drawn from a spread, the first choices more often: thresholds, page numbers (30), words (20,
 * and their 400 pairs for text queries), issue types, uniqueness cut-offs, and anchors among 2,000 media. Many users
 * reading one dataset ask some of the same things; none repeats one request.
 */
function queryMix(apiUrl: string, datasetId: string, tagId: string, ids: string[]): (n: number) => LoadRequest {
  const base = `${apiUrl}/explore/${datasetId}?entity_type=IMAGES`;
  const vql = (filters: unknown[]) => `&vql=${encodeURIComponent(JSON.stringify(filters))}`;
  const word = (n: number, d: number) => WORDS[skewed(draw(n, d), WORDS.length)];
  const threshold = (n: number, levels = 5) => skewed(draw(n, 9), levels);
  const urls: Array<(n: number) => string> = [
    (n) => (draw(n, 0) < 0.5 ? base : `${base}&threshold=${threshold(n)}`),
    (n) => `${base}&threshold=${threshold(n)}&page_number=${1 + skewed(draw(n, 1), 29)}`,
    (n) => {
      const labels = { labels: { op: 'one_of', value: [word(n, 2)] } };
      return `${base}${vql(draw(n, 3) < 0.5 ? [labels] : [labels, { tags: { op: 'is', value: [tagId] } }])}`;
    },
    (n) => `${base}&threshold=${threshold(n)}${vql([{ issues: { op: 'issue', value: ['dark', 'blur', 'duplicates'][skewed(draw(n, 4), 3)], mode: 'in' } }])}`,
    (n) => `${base}&threshold=${threshold(n, 3)}${vql([{ uniqueness: { op: 'uniqueness', value: 0.5 + skewed(draw(n, 5), 5) / 10 } }])}`,
    (n) => `${base}${vql([{ text: { op: 'fts', value: `${word(n, 6)} ${word(n, 7)}` } }])}`,
    (n) => `${base}&anchor_type=MEDIA&anchor_media_id=${ids[(skewed(draw(n, 8), 2000) * 977) % ids.length]}`,
    (n) => `${base}&caption=${encodeURIComponent(`a ${word(n, 6)} near the ${word(n, 7)}`)}`,
  ];
  return (n) => ({ kind: QUERY_KINDS[n % urls.length], url: urls[n % urls.length](n) });
}

/**
 * The generations of what Explore reads (db/repositories/exploreChanges.ts) in the database at `url`: every commit that
 * changed it, and those that changed clustered media (null where it has no such column); null where it has none.
 */
function exploreGenerations(url: string): Promise<{ every: number; clustered: number | null } | null> {
  return withClient(url, async (client) => {
    const { rows } = await client.query(`SELECT to_regclass('explore_changes') IS NOT NULL AS counted,
      EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'explore_changes' AND column_name = 'n_clustered') AS clustered`);
    if (!rows[0].counted) return null;
    const sums = await client.query(`SELECT coalesce(sum(n), 0)::float8 AS every${rows[0].clustered ? ', coalesce(sum(n_clustered), 0)::float8 AS clustered' : ''} FROM explore_changes`);
    return { every: sums.rows[0].every, clustered: sums.rows[0].clustered ?? null };
  });
}

/** A copy of database `from` (nobody may be connected to it) as `to`. */
async function copyDatabase(serverUrl: string, from: string, to: string): Promise<void> {
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${to} TEMPLATE ${from}`));
}

async function runPhase(options: {
  variant: Variant;
  /** The API's environment. */
  env: Record<string, string>;
  round: number;
  files: string[];
  datasetId: string;
  tagId: string;
  ids: string[];
  logs: string;
  monitor: Client;
  processes: { worker: number; postmaster: number };
}): Promise<Phase> {
  const { variant, round, datasetId } = options;
  const port = freePort();
  const profileDir = path.join(options.logs, `profile-${variant.name}-${round}`);
  const api = startNode(
    variant.sourceDir,
    'api/server.ts',
    { ...options.env, API_HOST: '127.0.0.1', API_PORT: String(port) },
    path.join(options.logs, `api-${variant.name}-${round}.log`),
    args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  );
  const apiUrl = `http://127.0.0.1:${port}/api/v1`;
  try {
    await waitFor('API', api, async () => (await fetch(`${apiUrl}/datasets`)).status === 200, 120_000);
    const pid = api.child.pid!;
    const startedRss = memoryOf(pid).rss;
    const next = queryMix(apiUrl, datasetId, options.tagId, options.ids);
    const timed = async (n: number) => {
      const at = Date.now();
      const response = await fetch(next(n).url);
      if (response.status !== 200) throw new Error(`warm-up ${next(n).kind}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      return Date.now() - at;
    };
    const warmUp = { first_visual_query_ms: await timed(QUERY_KINDS.indexOf('visual (MEDIA anchor)')), first_caption_query_ms: await timed(QUERY_KINDS.indexOf('caption (semantic)')) };
    for (let n = 0; n < WARM_UP_ROUNDS * QUERY_KINDS.length; n++) await timed(n);
    const warmUpLoad = warmUpSeconds > 0 ? (await runLoad({ clients, seconds: warmUpSeconds, rate, next: (n) => next(WARM_UP_REQUESTS + n) })).overall : null;
    if (warmUpLoad) say(`  warm-up load, ${warmUpSeconds} s: ${warmUpLoad.requests_per_second} req/s, p50 ${warmUpLoad.p50_ms} ms, p95 ${warmUpLoad.p95_ms} ms, remembered ${hitRate(warmUpLoad.answers)}`);
    const beforeRss = memoryOf(pid).rss;

    const addStarted = Date.now();
    const response = await fetch(`${apiUrl}/dataset/${datasetId}/add_media`, { method: 'POST', body: await filesForm(options.files) });
    if (response.status !== 202) throw new Error(`add_media refused: ${response.status} ${await response.text()}`);
    let addSeconds: number | undefined;
    const added = waitForNewestTask(apiUrl, datasetId).then(() => {
      addSeconds = (Date.now() - addStarted) / 1000;
    });
    added.catch(() => undefined);

    const cpuNow = () => ({
      api: treeCpuSeconds(pid),
      postgres: treeCpuSeconds(options.processes.postmaster),
      worker: treeCpuSeconds(options.processes.worker),
      clients: process.cpuUsage(),
      machine: machineCpuSeconds(),
    });
    const connections: Array<{ active: number; total: number }> = [];
    const cpuBySecond: Phase['cpu_by_second'] = [];
    // Postgres's backends by who connected (application_name), read from /proc each second: the API's, the worker's.
    const backendCpu = new Map<number, number>();
    const backendsNow = async () => {
      const { rows } = await options.monitor.query<{ pid: number; application_name: string }>('SELECT pid, application_name FROM pg_stat_activity WHERE datname = $1', [variant.database]);
      const used = { api: 0, worker: 0 };
      for (const { pid, application_name: name } of rows) {
        const now = processCpuSeconds(pid);
        if (now === undefined) continue;
        const who = name.startsWith('bench-api') ? 'api' : name.startsWith('bench-worker') ? 'worker' : undefined;
        if (who) used[who] += now - (backendCpu.get(pid) ?? 0);
        backendCpu.set(pid, now);
      }
      return used;
    };
    await backendsNow();
    let sampling = true;
    const sampler = (async () => {
      let last = cpuNow();
      while (sampling) {
        const { rows } = await options.monitor.query(
          `SELECT count(*) FILTER (WHERE state = 'active')::int AS active, count(*)::int AS total FROM pg_stat_activity WHERE application_name = 'bench-api' AND backend_type = 'client backend'`,
        );
        connections.push(rows[0]);
        await sleep(1000);
        const now = cpuNow();
        const backends = await backendsNow();
        const elapsed = (now.machine.total - last.machine.total) / os.cpus().length;
        const cores = (used: number) => Math.round((100 * used) / Math.max(1e-9, elapsed)) / 100;
        cpuBySecond.push({
          api: cores(now.api - last.api),
          postgres: cores(now.postgres - last.postgres),
          postgres_for_api: cores(backends.api),
          postgres_for_worker: cores(backends.worker),
          worker: cores(now.worker - last.worker),
          clients: cores((now.clients.user + now.clients.system - last.clients.user - last.clients.system) / 1e6),
          machine: cores(now.machine.busy - last.machine.busy),
        });
        last = now;
      }
    })();
    await resetStatementStats(options.monitor);
    const generationBefore = await exploreGenerations(options.env.DATABASE_URL.replace(/application_name=[^&]*/, 'application_name=bench-monitor'));
    const loadAverageStart = os.loadavg()[0];
    const cpuBefore = cpuNow();
    const loadFrom = nowUs();
    const loadFromMs = Date.now();
    const load = await runLoad({ clients, seconds, rate, next });
    const loadTo = nowUs();
    const cpuAfter = cpuNow();
    const statements = await statementStats(options.monitor, variant.database);
    const generationAfter = await exploreGenerations(options.env.DATABASE_URL.replace(/application_name=[^&]*/, 'application_name=bench-monitor'));
    const cpuRound = (value: number) => Math.round(value * 10) / 10;
    sampling = false;
    await sampler;
    const loadAverageEnd = os.loadavg()[0];
    const finishedDuringLoad = addSeconds !== undefined;
    await added;
    const byKind = await cpuByKind(next, () => ({ api: treeCpuSeconds(pid), postgres: treeCpuSeconds(options.processes.postmaster) }));
    const memory = memoryOf(pid);
    await api.stop('SIGTERM', 60_000);

    const mean = (values: number[]) => Math.round((10 * values.reduce((a, b) => a + b, 0)) / Math.max(1, values.length)) / 10;
    const phase: Phase = {
      variant: variant.name,
      round,
      warm_up: warmUp,
      warm_up_load: warmUpLoad,
      api_rss_mib: { started: mib(startedRss), before_load: mib(beforeRss), after_load: mib(memory.rss), peak: mib(memory.peak) },
      load,
      add_media: { images: options.files.length, seconds: addSeconds!, finished_during_load: finishedDuringLoad },
      api_answer_ms_by_window: apiAnswerTimes(path.join(options.logs, `api-${variant.name}-${round}.log`), loadFromMs, seconds),
      api_db_connections: {
        samples: connections.length,
        mean_active: mean(connections.map((sample) => sample.active)),
        max_active: Math.max(...connections.map((sample) => sample.active)),
        mean_total: mean(connections.map((sample) => sample.total)),
      },
      postgres_statements: statements,
      cpu_seconds: {
        api: cpuRound(cpuAfter.api - cpuBefore.api),
        postgres: cpuRound(cpuAfter.postgres - cpuBefore.postgres),
        worker: cpuRound(cpuAfter.worker - cpuBefore.worker),
        clients: cpuRound(
          (cpuAfter.clients.user + cpuAfter.clients.system - cpuBefore.clients.user - cpuBefore.clients.system) / 1e6,
        ),
        machine_busy: cpuRound(cpuAfter.machine.busy - cpuBefore.machine.busy),
        machine_capacity: cpuRound(cpuAfter.machine.total - cpuBefore.machine.total),
      },
      cpu_ms_per_request: {
        api: msPerRequest(cpuAfter.api - cpuBefore.api, load.overall.requests),
        postgres: msPerRequest(cpuAfter.postgres - cpuBefore.postgres, load.overall.requests),
        worker: msPerRequest(cpuAfter.worker - cpuBefore.worker, load.overall.requests),
        api_and_postgres: msPerRequest(cpuAfter.api - cpuBefore.api + cpuAfter.postgres - cpuBefore.postgres, load.overall.requests),
      },
      load_average: { start: Math.round(loadAverageStart * 10) / 10, end: Math.round(loadAverageEnd * 10) / 10 },
      explore_writes_during_load: generationBefore === null || generationAfter === null ? null : generationAfter.every - generationBefore.every,
      explore_clustered_writes_during_load:
        generationBefore?.clustered == null || generationAfter?.clustered == null ? null : generationAfter.clustered - generationBefore.clustered,
      cpu_ms_by_kind: byKind,
      cpu_by_second: cpuBySecond,
    };
    if (args.profile) {
      const [file] = fs.readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'));
      phase.cpu_profile = summariseProfile(path.join(profileDir, file), loadFrom, loadTo, [variant.sourceDir]);
    }
    const o = load.overall;
    say(
      `  ${o.requests_per_second.toFixed(1)} req/s, p50 ${o.p50_ms} ms, p95 ${o.p95_ms} ms, p99 ${o.p99_ms} ms, errors ${JSON.stringify(o.errors)}; ` +
        `API RSS ${phase.api_rss_mib.before_load} → ${phase.api_rss_mib.after_load} MiB (peak ${phase.api_rss_mib.peak}); add_media ${addSeconds!.toFixed(1)} s; ` +
        `API db connections active ${phase.api_db_connections.mean_active} (max ${phase.api_db_connections.max_active}); answers ${JSON.stringify(o.answers)}`,
    );
    for (const [kind, row] of Object.entries(load.by_kind)) {
      say(`    ${kind.padEnd(28)} ${String(row.requests).padStart(6)} req  p50 ${String(row.p50_ms).padStart(8)} ms  p95 ${String(row.p95_ms).padStart(8)} ms  ${row.mean_response_kib} KiB (${row.mean_wire_kib} sent)  remembered ${hitRate(row.answers)}`);
    }
    say(`    cores used each second (API/Postgres: for the API, for the worker/worker/clients): ${phase.cpu_by_second.map((c) => `${c.api}/${c.postgres}:${c.postgres_for_api},${c.postgres_for_worker}/${c.worker}/${c.clients}`).join(' ')}`);
    say(`    the API's own times, by when answered: ${phase.api_answer_ms_by_window.map((w) => `${w.from_second}s ${w.requests} req p50 ${w.p50_ms} p95 ${w.p95_ms}`).join(' | ')}`);
    say(`    by when sent: ${load.by_window.map((w) => `${w.from_second}s ${w.requests} req p50 ${w.p50_ms} p95 ${w.p95_ms} remembered ${hitRate(w.answers)}`).join(' | ')}`);
    const cpu = phase.cpu_seconds;
    say(
      `    CPU s during the load: API ${cpu.api}, Postgres ${cpu.postgres}, worker ${cpu.worker}, clients ${cpu.clients}; ` +
        `machine ${cpu.machine_busy} of ${cpu.machine_capacity} (other processes ${cpuRound(cpu.machine_busy - cpu.api - cpu.postgres - cpu.worker - cpu.clients)})`,
    );
    const own = phase.cpu_ms_per_request;
    say(`    CPU ms per request during the load: API ${own.api}, Postgres ${own.postgres}, both ${own.api_and_postgres} (worker ${own.worker}); load average ${phase.load_average.start} → ${phase.load_average.end}; commits changing what Explore reads ${phase.explore_writes_during_load} (clustered media: ${phase.explore_clustered_writes_during_load ?? 'not counted apart'})`);
    say(`    CPU ms per request by kind, one at a time (API + Postgres): ${Object.entries(byKind).map(([kind, row]) => `${kind} ${row.api} + ${row.postgres}`).join(', ')}`);
    say(`    Postgres time by statement: ${statements.slice(0, 8).map((row) => `${row.kind} ${row.pct}% (${row.mean_ms} ms × ${row.calls})`).join(', ')}`);
    if (phase.cpu_profile) {
      say(`    API main thread idle ${phase.cpu_profile.idle_pct} %; by area: ${phase.cpu_profile.by_area.slice(0, 8).map((a) => `${a.area} ${a.pct}%`).join(', ')}`);
    }
    return phase;
  } finally {
    await api.stop('SIGTERM', 60_000);
  }
}

/** Milliseconds per request from CPU seconds over `requests`. */
const msPerRequest = (seconds: number, requests: number) => Math.round((10_000 * seconds) / Math.max(1, requests)) / 10;

/**
 * CPU per request by query kind: KIND_PASS_REQUESTS of each kind sent one at a time (numbers the load did not send),
 * with the API's and Postgres's CPU read around them. One at a time, a request's CPU hardly depends on what else runs.
 */
async function cpuByKind(next: (n: number) => LoadRequest, cpu: () => { api: number; postgres: number }): Promise<Phase['cpu_ms_by_kind']> {
  const result: Phase['cpu_ms_by_kind'] = {};
  for (let kind = 0; kind < QUERY_KINDS.length; kind++) {
    const before = cpu();
    const started = Date.now();
    const answers: Record<string, number> = {};
    for (let i = 0; i < KIND_PASS_REQUESTS; i++) {
      const request = next(1_000_000 + i * QUERY_KINDS.length + kind);
      const response = await fetch(request.url);
      if (response.status !== 200) throw new Error(`${request.kind}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      const answer = response.headers.get('x-explore-answer');
      if (answer) answers[answer] = (answers[answer] ?? 0) + 1;
    }
    const wall = (Date.now() - started) / KIND_PASS_REQUESTS;
    const after = cpu();
    const [api, postgres] = [after.api - before.api, after.postgres - before.postgres];
    result[QUERY_KINDS[kind]] = {
      api: msPerRequest(api, KIND_PASS_REQUESTS),
      postgres: msPerRequest(postgres, KIND_PASS_REQUESTS),
      api_and_postgres: msPerRequest(api + postgres, KIND_PASS_REQUESTS),
      wall_ms: Math.round(wall * 10) / 10,
      answers,
    };
  }
  return result;
}

/** The short summary kept next to the JSON: machine, load, and each phase's throughput and latencies. */
function markdown(report: { date: string; machine: ReturnType<typeof benchMachine>; load_average_at_start: number[]; phases: Phase[] }): string {
  const { machine } = report;
  const lines = [
    `# bench:explore-load: ${loadShape} × ${seconds} s at ${mediaCount.toLocaleString('en-US')} media (${report.date.slice(0, 10)})`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}; shared with other jobs ` +
      `(load average at start ${report.load_average_at_start.map((n) => n.toFixed(1)).join(' / ')}). The API and the worker are separate processes; ` +
      `an add_media batch of ${batchSize} real images runs during the load${warmUpSeconds > 0 ? `, which follows ${warmUpSeconds} s of the same load without it (other requests of the same mix)` : ''}. Query mix (equal shares, each kind's parameters drawn from a spread, the first choices more often): ${QUERY_KINDS.join(', ')}.`,
    '',
    '| variant, round | requests/s | p50 ms | p95 ms | p99 ms | errors | API RSS MiB (before → after, peak) | add_media s |',
    '|---|---:|---:|---:|---:|---|---|---:|',
    ...report.phases.map((phase) => {
      const o = phase.load.overall;
      const rss = phase.api_rss_mib;
      return `| ${phase.variant}, ${phase.round} | ${o.requests_per_second} | ${o.p50_ms} | ${o.p95_ms} | ${o.p99_ms} | ${JSON.stringify(o.errors)} | ${rss.before_load} → ${rss.after_load}, ${rss.peak} | ${phase.add_media.seconds.toFixed(1)} |`;
    }),
    '',
    '| query kind (last phase) | requests | answers remembered | p50 ms | p95 ms | KiB mean (as sent) | CPU ms one at a time: API | Postgres | (remembered) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(report.phases.at(-1)!.load.by_kind).map(([kind, row]) => {
      const cpu = report.phases.at(-1)!.cpu_ms_by_kind[kind];
      return `| ${kind} | ${row.requests} | ${hitRate(row.answers)} | ${row.p50_ms} | ${row.p95_ms} | ${row.mean_response_kib} (${row.mean_wire_kib}) | ${cpu?.api} | ${cpu?.postgres} | ${hitRate(cpu?.answers ?? {})} |`;
    }),
    '',
  ];
  const last = report.phases.at(-1)!;
  const cpu = last.cpu_seconds;
  const own = last.cpu_ms_per_request;
  lines.push(
    `CPU seconds during the last load window: API ${cpu.api}, Postgres ${cpu.postgres}, worker ${cpu.worker}, clients ${cpu.clients}; machine busy ${cpu.machine_busy} of ${cpu.machine_capacity} ` +
      `(load average ${last.load_average.start} → ${last.load_average.end}). Per request served: API ${own.api} ms, Postgres ${own.postgres} ms, both ${own.api_and_postgres} ms.`,
    `Answers remembered during the load (X-Explore-Answer): ${hitRate(last.load.overall.answers)} (${JSON.stringify(last.load.overall.answers)}); commits that changed what Explore reads during the load: ${last.explore_writes_during_load ?? 'not counted'} (clustered media: ${last.explore_clustered_writes_during_load ?? 'not counted apart'}).`,
    `Answer times by when the request was sent${rate ? ' (was due)' : ''}: ${last.load.by_window.map((w) => `${w.from_second}-${w.from_second + WINDOW_SECONDS} s: ${w.requests} requests, p50 ${w.p50_ms} ms, p95 ${w.p95_ms} ms, ${hitRate(w.answers)} remembered`).join('; ')}.`,
    `The API's own times (its request log) by when it answered: ${last.api_answer_ms_by_window.map((w) => `${w.from_second}-${w.from_second + WINDOW_SECONDS} s: ${w.requests} requests, p50 ${w.p50_ms} ms, p95 ${w.p95_ms} ms`).join('; ')}.`,
    `Postgres time by statement: ${last.postgres_statements.slice(0, 5).map((row) => `${row.kind} ${row.pct} % (${row.mean_ms} ms mean)`).join('; ')}.`,
  );
  return `${lines.join('\n')}\n`;
}

/** The share of answers the API had remembered (hits) among those it said where they came from, as a percentage. */
function hitRate(answers: Record<string, number>): string {
  const total = Object.values(answers).reduce((a, b) => a + b, 0);
  return total === 0 ? '-' : `${Math.round((100 * (answers.hit ?? 0)) / total)} %`;
}

/** Current over baseline, per round (the two ran back to back) and over all rounds. */
function compare(phases: Phase[]) {
  const ratios = (pick: (phase: Phase) => number) => {
    const perRound = [...new Set(phases.map((phase) => phase.round))].map((round) => {
      const [baseline, current] = ['baseline', 'current'].map((name) => phases.find((phase) => phase.round === round && phase.variant === name)!);
      return Math.round((100 * pick(current)) / pick(baseline)) / 100;
    });
    return { per_round: perRound, mean: Math.round((100 * perRound.reduce((a, b) => a + b, 0)) / perRound.length) / 100 };
  };
  return {
    note: 'current ÷ baseline: above 1 is better for throughput, below 1 is better for latency',
    throughput: ratios((phase) => phase.load.overall.requests_per_second),
    p50: ratios((phase) => phase.load.overall.p50_ms),
    p95: ratios((phase) => phase.load.overall.p95_ms),
    p99: ratios((phase) => phase.load.overall.p99_ms),
    add_media_seconds: ratios((phase) => phase.add_media.seconds),
  };
}

runBench(main);

/**
 * The API's own time for the Explore requests its log (api/middleware/requestContext.ts) says it answered in the
 * `seconds` after `fromMs`, by WINDOW_SECONDS, in ms.
 */
function apiAnswerTimes(logFile: string, fromMs: number, seconds: number): Phase['api_answer_ms_by_window'] {
  const windows: number[][] = Array.from({ length: Math.ceil(seconds / WINDOW_SECONDS) }, () => []);
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"duration_ms"') || !line.includes('/explore/')) continue;
    const entry = JSON.parse(line) as { time: string; duration_ms: number };
    const window = Math.floor((Date.parse(entry.time) - fromMs) / 1000 / WINDOW_SECONDS);
    if (window >= 0 && window < windows.length) windows[window].push(entry.duration_ms);
  }
  return windows.map((times, i) => {
    const sorted = times.sort((a, b) => a - b);
    const ms = (p: number) => (sorted.length ? Math.round(percentile(sorted, p) * 10) / 10 : 0);
    return { from_second: i * WINDOW_SECONDS, requests: sorted.length, p50_ms: ms(0.5), p95_ms: ms(0.95) };
  });
}
