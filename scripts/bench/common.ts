import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import sharp from 'sharp';
import { startApiServer } from '../../api/server';
import { createDb, migrateLatest, type Db } from '../../db/connection';
import type { User } from '../../db/models';
import { analyzeExploredTables, vacuumMedia } from '../../db/repositories/plannerStatistics';
import { ensureDefaultTenant } from '../../db/repositories/users';
import { loadConfig } from '../../lib/config';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { startTemporalDevServer } from '../../lib/embedded/temporal';
import { createLogger } from '../../lib/logger';
import { projectRoot } from '../../lib/projectRoot';
import { startWorkers } from '../../workers/main';
import { Connection } from '@temporalio/client';
import { checkTemporal } from '../../lib/temporal/health';
import { taskQueues } from '../../workflows/contracts';

// Shared by the benchmarks: the image set, ports, and the HTTP steps a client takes.

export const benchDir = path.join(projectRoot(), 'bench');
const photosDir = path.join(benchDir, 'data', 'photos');

export const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Runs a benchmark script's `main`. A failure prints its stack and ends the process with status 1 once
 * `main` has taken down what it started (its own finally blocks), so nothing left open keeps it alive.
 */
export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}

/** The value below which a fraction `p` of the ascending `sorted` values lie. */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** How long `fn` takes, in seconds, and what it returns. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ seconds: number; value: T }> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, value };
}

/**
 * What a task's end does to the explored tables (services/taskTypes.ts commitTaskEnd): the media rows vacuumed (here
 * without its 10 s bound) and fresh planner statistics. A bench that ran activities rather than a task calls it before
 * measuring what comes after; returns the seconds it took.
 */
export async function endLikeATask(databaseUrl: string): Promise<number> {
  const db = createDb(databaseUrl, 1);
  const started = Date.now();
  try {
    await vacuumMedia(db, 600_000);
    await analyzeExploredTables(db);
    return (Date.now() - started) / 1000;
  } finally {
    await db.destroy();
  }
}

/** Bytes of every file under `dir` (0 when it does not exist). */
export function directoryBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + fs.statSync(path.join(entry.parentPath, entry.name)).size, 0);
}

/** A migrated database with the default tenant on an embedded Postgres of its own, removed afterwards. */
export function withBenchDatabase<T>(name: string, body: (db: Db, admin: User) => Promise<T>): Promise<T> {
  return withScratchPostgres(name, async (postgres) => {
    const db = createDb(await ensureDatabase(postgres.url, `bench_${name.replaceAll('-', '_')}`), 4);
    try {
      await migrateLatest(db);
      const { admin } = await ensureDefaultTenant(db, { email: 'bench@localhost.localdomain' });
      return await body(db, admin);
    } finally {
      await db.destroy();
    }
  });
}

/**
 * An embedded Postgres in a new scratch directory named after `name` (a copy of the directory `copyOf`, a scratch a
 * bench kept, when given), for `body`; both removed afterwards, however `body` ends.
 */
export async function withScratchPostgres<T>(name: string, body: (postgres: { url: string }, scratch: string) => Promise<T>, copyOf?: string): Promise<T> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name}-`));
  try {
    if (copyOf) execFileSync('cp', ['-a', `${copyOf}/.`, scratch]);
    const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
    try {
      return await body(postgres, scratch);
    } finally {
      await postgres.stop();
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

export function freePort(): number {
  return 20000 + Math.floor(Math.random() * 20000);
}

/** Deterministic variants: crop, resize, flip, tint and JPEG quality vary with the index. */
export async function prepareImages(count: number): Promise<string[]> {
  const imagesDir = path.join(benchDir, 'data', `images-${count}`);
  if (!fs.existsSync(photosDir) || fs.readdirSync(photosDir).length === 0) {
    execFileSync('bash', [path.join(projectRoot(), 'scripts', 'bench', 'fetch-photos.sh'), photosDir], { stdio: 'inherit' });
  }
  fs.mkdirSync(imagesDir, { recursive: true });
  const photos = fs.readdirSync(photosDir).sort().map((name) => path.join(photosDir, name));
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const target = path.join(imagesDir, `img_${String(i).padStart(6, '0')}.jpg`);
    files.push(target);
    if (fs.existsSync(target)) continue;
    const source = photos[i % photos.length];
    const round = Math.floor(i / photos.length);
    const meta = await sharp(source).metadata();
    const crop = 1 - (round % 5) * 0.05;
    const width = Math.max(32, Math.floor(meta.width! * crop));
    const height = Math.max(32, Math.floor(meta.height! * crop));
    let image = sharp(source)
      .extract({ left: Math.floor((meta.width! - width) / 2), top: Math.floor((meta.height! - height) / 2), width, height })
      .resize(1024, 1024, { fit: 'inside', withoutEnlargement: true });
    if (round % 2 === 1) image = image.flop();
    if (round % 3 === 2) image = image.modulate({ brightness: 0.8 + (round % 7) * 0.06, hue: (round * 37) % 360 });
    await image.jpeg({ quality: 60 + (round % 4) * 10 }).toFile(target);
  }
  return files;
}

/**
 * Creates a dataset from `files` over HTTP (50 files a request) and times process_files → COMPLETED;
 * `beforeProcessing` runs once the files are uploaded, right before process_files (to start a CPU window there).
 */
export async function createDatasetOverHttp(
  apiUrl: string,
  name: string,
  files: string[],
  beforeProcessing?: () => void,
): Promise<{ datasetId: string; taskId: string; seconds: number }> {
  const created = await (await fetch(`${apiUrl}/ingestion/new_dataset?dataset_name=${encodeURIComponent(name)}`)).json() as { dataset_id: string };
  const { trans_id: transId } = await (await fetch(`${apiUrl}/ingestion/${created.dataset_id}/data_files`)).json() as { trans_id: number };
  for (let i = 0; i < files.length; i += 50) {
    const response = await fetch(`${apiUrl}/ingestion/${created.dataset_id}/data_files/${transId}`, { method: 'POST', body: await filesForm(files.slice(i, i + 50)) });
    if (response.status !== 202) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
  }
  beforeProcessing?.();
  const started = Date.now();
  const { task_id: taskId } = await (await fetch(`${apiUrl}/ingestion/${created.dataset_id}/process_files/${transId}`, { method: 'POST' })).json() as { task_id: string };
  await waitForNewestTask(apiUrl, created.dataset_id);
  return { datasetId: created.dataset_id, taskId, seconds: (Date.now() - started) / 1000 };
}

/** A multipart form with `files` parts (or one part under `field`). */
export async function filesForm(files: string[], field = 'files'): Promise<FormData> {
  const form = new FormData();
  for (const file of files) form.append(field, await fs.openAsBlob(file), path.basename(file));
  return form;
}

/**
 * Polls /tasks (as a client would) until the dataset's newest task completes; throws if it fails.
 * `onPoll` sees the newest task at every poll (e.g. to time its status messages).
 */
export async function waitForNewestTask(
  apiUrl: string,
  datasetId: string,
  onPoll?: (task: { status: string; status_message: string }) => void,
): Promise<{ task_type: string; status_message: string }> {
  for (;;) {
    const response = await fetch(`${apiUrl}/tasks?dataset_id=${datasetId}`);
    // A 503 (Postgres or Temporal slow to answer on a loaded machine) is asked again after its Retry-After, as a client does.
    if (response.status === 503) {
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)));
      continue;
    }
    if (!response.ok) throw new Error(`GET /tasks answered ${response.status}: ${await response.text()}`);
    const { tasks } = (await response.json()) as {
      tasks: Array<{ task_type: string; status: string; status_message: string; error_message: string }>;
    };
    if (tasks[0]) onPoll?.(tasks[0]);
    if (tasks[0]?.status === 'COMPLETED') return tasks[0];
    if (tasks[0]?.status === 'FAILED') throw new Error(`${tasks[0].task_type} failed: ${tasks[0].error_message}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export interface ListedEnrichmentModel {
  id: string;
  name: string;
  type: string;
  status: string;
  dependencies: string[] | null;
}

/**
 * What list_models offers for `datasetId`, and the request that applies all of it: for each type
 * the first Active model, leaving out types with none and models whose dependencies have none.
 */
export async function activeEnrichment(apiUrl: string, datasetId: string): Promise<{ listed: ListedEnrichmentModel[]; chosen: Record<string, string> }> {
  const response = await fetch(`${apiUrl}/enrichment/${datasetId}/list_models`);
  if (response.status !== 200) throw new Error(`list_models failed: ${response.status} ${await response.text()}`);
  const listed = (await response.json()) as ListedEnrichmentModel[];
  const chosen: Record<string, string> = {};
  for (const model of listed) if (model.status === 'Active' && !chosen[model.type]) chosen[model.type] = model.id;
  // Drop a model whose dependency type has nothing Active, until nothing more drops (a chain).
  for (let dropped = true; dropped; ) {
    dropped = false;
    for (const [type, id] of Object.entries(chosen)) {
      const model = listed.find((candidate) => candidate.id === id)!;
      if ((model.dependencies ?? []).some((dependency) => !chosen[dependency])) {
        delete chosen[type];
        dropped = true;
      }
    }
  }
  return { listed, chosen };
}

/** The models of `chosen` of the given types, with the models they depend on (from `chosen` too). */
export function withDependencies(listed: ListedEnrichmentModel[], chosen: Record<string, string>, types: string[]): Record<string, string> {
  const request: Record<string, string> = {};
  const add = (type: string) => {
    if (request[type] || !chosen[type]) return;
    request[type] = chosen[type];
    for (const dependency of listed.find((model) => model.id === chosen[type])?.dependencies ?? []) add(dependency);
  };
  types.forEach(add);
  return request;
}

/**
 * POSTs enrich_dataset with `models` and waits for the new dataset's ENRICHMENT task. Returns the
 * new dataset, the seconds from the request to COMPLETED, and when (seconds from the request) each
 * step's status message was first seen by the 250 ms polls, so the copy and each model's pass can be
 * told apart (a step's message is written after its first batch, so it shows up that much late).
 * Throws when the task fails, or when its status message (counts included) stays the same for
 * `stallSeconds` (an activity retrying; an ENRICHMENT cannot be aborted, so the source stays READ ONLY).
 */
export async function enrichOverHttp(
  apiUrl: string,
  datasetId: string,
  models: Record<string, string>,
  stallSeconds = 180,
): Promise<{ datasetId: string; seconds: number; timeline: Array<{ status_message: string; at_seconds: number }> }> {
  const started = Date.now();
  const response = await fetch(`${apiUrl}/dataset/${datasetId}/enrich_dataset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ enrichment_models: models }),
  });
  if (response.status !== 200) throw new Error(`enrich_dataset ${JSON.stringify(models)} refused: ${response.status} ${await response.text()}`);
  const { dataset_id: enrichedId } = (await response.json()) as { dataset_id: string };
  const timeline: Array<{ status_message: string; at_seconds: number }> = [];
  let last = { message: '', since: Date.now() };
  await waitForNewestTask(apiUrl, enrichedId, (task) => {
    // "Enriching: IMAGE_TAGGING 1/2 (160/2000)" is one step: its counts are left out.
    const step = task.status_message.replace(/ \(\d+\/\d+\)$/, '');
    if (timeline.at(-1)?.status_message !== step) timeline.push({ status_message: step, at_seconds: (Date.now() - started) / 1000 });
    if (task.status_message !== last.message) last = { message: task.status_message, since: Date.now() };
    else if (Date.now() - last.since > stallSeconds * 1000) {
      throw new Error(`enrichment ${enrichedId} of ${JSON.stringify(models)} stalled: "${task.status_message}" (${task.status}) unchanged for ${stallSeconds} s`);
    }
  });
  return { datasetId: enrichedId, seconds: (Date.now() - started) / 1000, timeline };
}

/** The machine a figure came from, recorded with every result. */
export function benchMachine() {
  return { cpu: os.cpus()[0].model, cores: os.cpus().length, memory_gib: Math.round(os.totalmem() / 2 ** 30), node: process.version };
}

/** bench/results/<benchmark>/, where the results of one benchmark (its npm script's name after `bench:`) go. */
export function resultsDir(benchmark: string): string {
  return path.join(benchDir, 'results', benchmark);
}

/** Writes `report` to bench/results/<benchmark>/<stem>-<date>.json (-2, -3… for later runs that day; `markdown`, if given, to the same name in .md) and says where. */
export function writeReport(benchmark: string, stem: string, report: { date: string }, markdown?: string): void {
  const dir = resultsDir(benchmark);
  fs.mkdirSync(dir, { recursive: true });
  // A second run on the same day gets a number of its own: results the docs cite are never written over.
  const named = (run: number) => path.join(dir, `${stem}-${report.date.slice(0, 10)}${run > 1 ? `-${run}` : ''}.json`);
  let run = 1;
  while (fs.existsSync(named(run))) run++;
  const file = named(run);
  fs.writeFileSync(file, JSON.stringify(report, null, 2));
  say(`results: ${file}`);
  if (markdown === undefined) return;
  fs.writeFileSync(file.replace(/\.json$/, '.md'), markdown);
  say(`results: ${file.replace(/\.json$/, '.md')}`);
}

/**
 * Runs `body` against a bench stack of its own (an embedded Postgres and startBenchStack in a new
 * scratch directory named after `name`), and takes it all down afterwards, however `body` ends.
 */
export function withScratchStack<T>(name: string, body: (apiUrl: string) => Promise<T>): Promise<T> {
  return withScratchPostgres(name, async (postgres, scratch) => {
    const stack = await startBenchStack(scratch, postgres.url, `bench_${name.replace(/\W/g, '_')}`);
    try {
      return await body(stack.apiUrl);
    } finally {
      await stack.stop();
    }
  });
}

/** Worker processes a bench starts instead of the in-process worker: each runs `workers/main.ts` of `sourceDir` with `env` added. */
export interface BenchWorkerProcess {
  sourceDir: string;
  env: Record<string, string>;
  /** Flags for node itself, e.g. --cpu-prof. */
  nodeFlags?: string[];
}

/**
 * The real API and worker on database `database` of an embedded Postgres and a new Temporal dev
 * server under `scratch`, as an end-to-end run needs them. With `workerProcesses`, those processes
 * (children of this one, so their CPU counts in its tree) serve the queues instead of a worker in this process.
 */
export async function startBenchStack(
  scratch: string,
  postgresUrl: string,
  database: string,
  workerProcesses?: BenchWorkerProcess[],
): Promise<{ apiUrl: string; temporalAddress: string; workerPids: number[]; stop(): Promise<void> }> {
  const temporal = await startTemporalDevServer({ dataDir: scratch, port: freePort(), namespace: 'default' });
  const env = {
    LOG_LEVEL: 'silent',
    DATA_DIR: path.join(scratch, 'data'),
    DATABASE_URL: await ensureDatabase(postgresUrl, database),
    TEMPORAL_ADDRESS: temporal.address,
    API_PORT: '0',
    PIPELINE_PORT: '0',
    API_HOST: '127.0.0.1',
  };
  const config = loadConfig({ ...process.env, ...env });
  const api = await startApiServer(config, createLogger('bench-api', 'silent'));
  const children = (workerProcesses ?? []).map((worker) => spawnWorker(worker, { ...env, MODELS_DIR: config.models.dir }));
  const stopWorkers = workerProcesses ? stopOnExit(children) : (await startWorkers(config, createLogger('bench-worker', 'silent'))).stop;
  await waitForWorkers(temporal.address, config.temporal.namespace, config.temporal.taskQueue, workerProcesses?.length ?? 1);
  return {
    apiUrl: `http://127.0.0.1:${api.port}/api/v1`,
    temporalAddress: temporal.address,
    workerPids: children.map((child) => child.pid!),
    async stop() {
      await stopWorkers();
      await api.close();
      await temporal.stop();
    },
  };
}

/**
 * Waits until `count` workers poll every queue (their models loaded, their workflows bundled): a timed run starts
 * with its workers ready, as a running service has them, not with their start-up in its window.
 */
async function waitForWorkers(address: string, namespace: string, taskQueue: string, count: number): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    for (const deadline = Date.now() + 300_000; ; ) {
      const health = await checkTemporal(connection, namespace, Object.values(taskQueues(taskQueue)));
      if (health.ok && Object.values(health.workers ?? {}).every((pollers) => pollers >= count)) return;
      if (Date.now() > deadline) throw new Error(`workers not polling after 300 s: ${JSON.stringify(health)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await connection.close();
  }
}

function spawnWorker(worker: BenchWorkerProcess, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...(worker.nodeFlags ?? []), '--import', 'tsx', 'workers/main.ts'], { cwd: worker.sourceDir, env: { ...process.env, ...env, ...worker.env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Stops the worker processes (SIGTERM: they finish their activities' shutdown) and waits for them. */
function stopOnExit(children: ChildProcess[]): () => Promise<void> {
  return async () => {
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        return exited;
      }),
    );
  };
}

/** Runs `fn` with a client connected to `url`, closed after. */
export async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
