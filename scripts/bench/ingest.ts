/**
 * `npm run bench:ingest [-- N]`: indexes N images (real photos from registry packages plus
 * generated variants) and reports images/s per stage, the end-to-end DATASET_CREATION run through
 * the real API, worker, Temporal and Postgres, and peak memory. Runs fastdup on the same images right before each end-to-end run
 * when it is installed (bench/.venv: `python3 -m venv bench/.venv && bench/.venv/bin/pip install
 * fastdup==2.54`, or FASTDUP_PYTHON) and prints the ratio. Results go to
 * bench/results/ingest/ingest-<N>-<date>.{json,md}. `-- N --stages-only`: the in-process stages and the
 * embedding agreement only (no end-to-end run, no fastdup); `--e2e-only`: the end-to-end runs and fastdup only. The end-to-end run is made with one worker
 * process and with two sharing the cores (and the chunks: the report says which took how many);
 * `--baseline-rev REV` first runs it with the worker of commit REV, for a before/after in one run;
 * `--variant INDEX_CHUNK_SIZE=64` (repeatable) adds a run of one worker with those settings; `--profile` summarises
 * the one worker's CPU profile (`--profile-out FILE` keeps it, for a timeline or DevTools); `--rounds N` runs every
 * variant N times, alternately (fastdup before each), and reports each one's median run.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { Client, Connection } from '@temporalio/client';
import { projectRoot } from '../../lib/projectRoot';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { analyzeImage } from '../../lib/media/imageAnalysis';
import { readImageModelManifest, type EncodedImage } from '../../lib/ml/imageEncoder';
import { loadImageEncoderInThread } from '../../lib/ml/encoderThread';
import { clusterByThresholds, type SimilarityEdge } from '../../lib/clustering/clusterByThresholds';
import { NEIGHBOUR_SCORING, scoreNeighbours, type NeighbourItem } from '../../lib/quality/neighbourScores';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { createDb, migrateLatest } from '../../db/connection';
import { installSdkLogger } from '../../workers/main';
import { workerProcessEnv } from '../../lib/embedded/workerProcesses';
import { summariseProfile, type ProfileSummary } from './cpuProfile';
import { postmasterOf, threadCpuSeconds, treeCpuSeconds } from './processCpu';
import { benchDir, benchMachine, createDatasetOverHttp, freePort, prepareImages, say, startBenchStack, writeReport, type BenchWorkerProcess, runBench } from './common';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'stages-only': { type: 'boolean', default: false },
    'e2e-only': { type: 'boolean', default: false },
    'baseline-rev': { type: 'string' },
    profile: { type: 'boolean', default: false },
    'profile-out': { type: 'string' },
    variant: { type: 'string', multiple: true, default: [] },
    rounds: { type: 'string', default: '1' },
  },
});
const count = Number(positionals[0] ?? 2000);
const stagesOnly = options['stages-only'];
const endToEndOnly = options['e2e-only'];
const profile = options.profile;
const baselineRev = options['baseline-rev'];
const rounds = Number(options.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds takes a whole number, at least 1');
if (profile && rounds > 1) throw new Error('--profile summarises one run: use it with --rounds 1');

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);

interface StageResult {
  stage: string;
  seconds: number;
  images_per_second: number;
  /** CPU of this process (every thread: libvips, onnxruntime) per image; end to end, of the whole process tree (Temporal, Postgres too). */
  cpu_ms_per_image?: number;
}

async function timed<T>(stage: string, items: number, results: StageResult[], fn: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const value = await fn();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000 / items;
  results.push({ stage, seconds, images_per_second: items / seconds, cpu_ms_per_image: cpuMs });
  say(`  ${stage.padEnd(44)} ${seconds.toFixed(2).padStart(8)} s  ${(items / seconds).toFixed(1).padStart(8)} images/s  ${cpuMs.toFixed(1).padStart(6)} CPU ms/image`);
  return value;
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i], 0);

/** How far embeddings from the prepared model input are from those of today's separate decode. */
function embeddingAgreement(prepared: EncodedImage[], decoded: EncodedImage[]) {
  const cosines = prepared.map((p, i) => cosine(p.vector, decoded[i].vector)).sort((a, b) => a - b);
  const at = (q: number) => Number(cosines[Math.min(cosines.length - 1, Math.floor(q * cosines.length))].toFixed(5));
  return {
    images: cosines.length,
    cosine_min: at(0),
    cosine_p1: at(0.01),
    cosine_p5: at(0.05),
    cosine_median: at(0.5),
    at_least_0_999: cosines.filter((c) => c >= 0.999).length,
    same_top1_class: prepared.filter((p, i) => p.classes[0]?.index === decoded[i].classes[0]?.index).length,
    ...pairAgreement(prepared.map((p) => p.vector), decoded.map((d) => d.vector)),
  };
}

/**
 * What the calibrated thresholds see: every pair's similarity with both sets of vectors, the largest
 * shift among pairs that matter (similarity >= 0.5 in either), and the duplicate pairs (>= the
 * duplicate threshold) each finds.
 */
function pairAgreement(a: Float32Array[], b: Float32Array[]) {
  const threshold = NEIGHBOUR_SCORING.duplicateSimilarity;
  let maxShift = 0;
  let both = 0;
  let onlyA = 0;
  let onlyB = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = i + 1; j < a.length; j++) {
      const sa = cosine(a[i], a[j]);
      const sb = cosine(b[i], b[j]);
      if (sa >= 0.5 || sb >= 0.5) maxShift = Math.max(maxShift, Math.abs(sa - sb));
      if (sa >= threshold && sb >= threshold) both++;
      else if (sa >= threshold) onlyA++;
      else if (sb >= threshold) onlyB++;
    }
  }
  return { pair_similarity_max_shift: Number(maxShift.toFixed(4)), duplicate_pairs_both: both, duplicate_pairs_only_prepared: onlyA, duplicate_pairs_only_decoded: onlyB };
}

/** 50 large JPEGs (about 24 MP each), for the memory bound of one big upload request. */
async function prepareLargePhotos(files: string[]): Promise<string[]> {
  const dir = path.join(benchDir, 'data', 'large-50');
  fs.mkdirSync(dir, { recursive: true });
  const out: string[] = [];
  for (let i = 0; i < 50; i++) {
    const target = path.join(dir, `large_${i}.jpg`);
    out.push(target);
    // Grain keeps the JPEGs as big as real 24 MP photos (a smooth upscale would compress to little).
    if (!fs.existsSync(target)) {
      const grain = await sharp({ create: { width: 6000, height: 4000, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 0, sigma: 24 } } }).png().toBuffer();
      await sharp(files[i]).resize(6000, 4000, { fit: 'fill' }).composite([{ input: grain, blend: 'overlay' }]).jpeg({ quality: 95 }).toFile(target);
    }
  }
  return out;
}

/** Sends all files in ONE multipart request and reports how much this process's memory grew meanwhile. */
async function measureOneBigUpload(apiUrl: string, files: string[]) {
  const created = await (await fetch(`${apiUrl}/ingestion/new_dataset?dataset_name=big-upload`)).json() as { dataset_id: string };
  const { trans_id: transId } = await (await fetch(`${apiUrl}/ingestion/${created.dataset_id}/data_files`)).json() as { trans_id: number };
  const before = process.memoryUsage().rss;
  let peak = before;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = Date.now();
  // curl is the client, in its own process, so the growth measured here is the server's alone.
  const status = await new Promise<string>((resolve, reject) =>
    execFile(
      'curl',
      ['-s', '-o', '/dev/null', '-w', '%{http_code}', ...files.flatMap((file) => ['-F', `files=@${file}`]), `${apiUrl}/ingestion/${created.dataset_id}/data_files/${transId}`],
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    ),
  );
  clearInterval(sample);
  if (status !== '202') throw new Error(`big upload failed: ${status}`);
  const bytes = files.reduce((sum, file) => sum + fs.statSync(file).size, 0);
  return { files: files.length, total_mb: Math.round(bytes / 2 ** 20), seconds: (Date.now() - started) / 1000, rss_growth_mb: Math.round((peak - before) / 2 ** 20) };
}

function runFastdup(files: string[]): { seconds: number; images_per_second: number; peak_rss_mb: number; duplicate_pairs: number } | undefined {
  const venvPython = path.join(benchDir, '.venv', 'bin', 'python');
  const python = process.env.FASTDUP_PYTHON ?? (fs.existsSync(venvPython) ? venvPython : 'python3');
  if (spawnSync(python, ['-c', 'import fastdup'], { stdio: 'ignore' }).status !== 0) return undefined;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fastdup-'));
  try {
    const output = execFileSync(python, [path.join(benchDir, '..', 'scripts', 'bench', 'run_fastdup.py'), path.dirname(files[0]), work], {
      env: { ...process.env, SENTRY_OPT_OUT: '1' },
      encoding: 'utf8',
    });
    return JSON.parse(output.trim().split('\n').pop()!);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

interface EndToEndResult {
  variant: string;
  /** Which of --rounds this run was (1 first). */
  round: number;
  seconds: number;
  images_per_second: number;
  /** Of the whole process tree (API, workers, Temporal, Postgres). */
  cpu_ms_per_image: number;
  /** The same split: the worker processes, Postgres, and the rest (the API and the bench in this process, Temporal). */
  cpu_ms_per_image_by_process: { workers: number; postgres: number; api_temporal_and_bench: number };
  /** The worker processes' CPU ms per image by thread name, summed over the processes (where a second process spends more). */
  worker_cpu_ms_per_image_by_thread?: Record<string, number>;
  /** Chunk activities each worker (pid@host) ran, from the MEDIA_CHUNKS child's history. */
  chunks_by_worker?: Record<string, { ingestChunk: number; embedChunk: number }>;
  /** The steps of the creation workflow and their seconds. */
  timeline?: Timeline;
  /** fastdup on the same files, run right before this run (the peer), and ours ÷ it. */
  fastdup_just_before?: ReturnType<typeof runFastdup>;
  ratio_vs_fastdup?: number;
  /** The machine's 1-minute load average as the timed window began and ended: other work on a shared machine. */
  load_average?: { start: number; end: number };
  /** Where the worker's main thread spent the run (--profile). */
  cpu_profile?: ProfileSummary;
}

const ONE_WORKER = '1 worker process';

/**
 * The end-to-end runs, each on a Temporal server and database of its own: the --baseline-rev commit's worker (a git
 * worktree of it), today's worker, and two of today's workers sharing the cores (one inference thread and one decode each).
 */
function endToEndVariants(scratch: string): Array<{ name: string; workers: BenchWorkerProcess[]; baseline?: boolean }> {
  const here = { sourceDir: projectRoot(), env: {} };
  // What `WORKER_PROCESSES=2 npm start` gives each of its workers.
  const shared = { sourceDir: projectRoot(), env: workerProcessEnv({}, 2) as Record<string, string> };
  const variants: Array<{ name: string; workers: BenchWorkerProcess[]; baseline?: boolean }> = [];
  if (baselineRev) {
    const sourceDir = path.join(scratch, 'baseline');
    execFileSync('git', ['worktree', 'add', '--detach', sourceDir, baselineRev], { cwd: projectRoot(), stdio: 'ignore' });
    fs.symlinkSync(path.join(projectRoot(), 'node_modules'), path.join(sourceDir, 'node_modules'));
    process.on('exit', () => spawnSync('git', ['worktree', 'remove', '--force', sourceDir], { cwd: projectRoot() }));
    variants.push({ name: `baseline ${baselineRev}: 1 worker process`, workers: [{ sourceDir, env: {} }], baseline: true });
  }
  // --profile: the one worker records a CPU profile, summarised over the run.
  const profiled = profile ? { ...here, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', path.join(scratch, 'profile')] } : here;
  // --variant K=V[,K=V]: one more run of one worker process with those settings, e.g. INDEX_CHUNK_SIZE=64.
  for (const settings of options.variant) {
    // A value may hold '=' itself (NODE_OPTIONS=--max-semi-space-size=64): the name ends at the first.
    const env = Object.fromEntries(settings.split(',').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
    variants.push({ name: `1 worker process (${settings})`, workers: [{ ...here, env }] });
  }
  variants.push({ name: ONE_WORKER, workers: [profiled] }, { name: `2 worker processes (WORKER_PROCESSES=2: INFERENCE_THREADS=${shared.env.INFERENCE_THREADS}, DECODE_CONCURRENCY=${shared.env.DECODE_CONCURRENCY} each)`, workers: [shared, shared] });
  return variants;
}

/** The steps of the task's workflow (activities and child workflows) with their seconds, from scheduled to closed. */
type Timeline = Array<{ step: string; seconds: number }>;

/**
 * How many chunk activities each worker ran for the task, over every run of its MEDIA_CHUNKS child, and the
 * timeline of the task's workflow (where the time between the chunks and the end goes).
 */
async function taskHistory(temporalAddress: string, taskId: string): Promise<{ split: Record<string, { ingestChunk: number; embedChunk: number }>; timeline: Timeline }> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = new Client({ connection });
    const split: Record<string, { ingestChunk: number; embedChunk: number }> = {};
    for await (const run of client.workflow.list({ query: `WorkflowId = '${taskId}-media'` })) {
      const events = (await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory()).events ?? [];
      const typeOf = new Map(events.flatMap((event) => (event.activityTaskScheduledEventAttributes ? [[String(event.eventId), event.activityTaskScheduledEventAttributes.activityType?.name ?? '']] : [])));
      for (const event of events) {
        const started = event.activityTaskStartedEventAttributes;
        const type = started && typeOf.get(String(started.scheduledEventId));
        if (type !== 'ingestChunk' && type !== 'embedChunk') continue;
        const identity = started?.identity ?? '?';
        split[identity] ??= { ingestChunk: 0, embedChunk: 0 };
        split[identity][type]++;
      }
    }
    const events = (await client.workflow.getHandle(taskId).fetchHistory()).events ?? [];
    const secondsOf = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(time?.seconds ?? 0) + (time?.nanos ?? 0) / 1e9;
    const opened = new Map<string, { step: string; at: number }>();
    const timeline: Timeline = [];
    for (const event of events) {
      const at = secondsOf(event.eventTime);
      const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
      const child = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name;
      if (activity || child) opened.set(String(event.eventId), { step: (activity ?? child)!, at });
      const closedId =
        event.activityTaskCompletedEventAttributes?.scheduledEventId ??
        event.activityTaskFailedEventAttributes?.scheduledEventId ??
        event.childWorkflowExecutionCompletedEventAttributes?.initiatedEventId ??
        event.childWorkflowExecutionFailedEventAttributes?.initiatedEventId;
      const open = closedId !== undefined && closedId !== null ? opened.get(String(closedId)) : undefined;
      if (open) timeline.push({ step: open.step, seconds: Number((at - open.at).toFixed(2)) });
    }
    return { split, timeline };
  } finally {
    await connection.close();
  }
}

/** The in-process stages, same code the activities run: decode, embed (prepared input and decoding the original), upsert, kNN graph, clustering. */
async function measureStages(
  files: string[],
  results: StageResult[],
  postgresUrl: string,
  scratch: string,
  setAgreement: (agreement: ReturnType<typeof embeddingAgreement> | undefined) => void,
): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  say('stages (one process, same code the activities run):');
  // The ingest's one decode: thumbnail, quality figures and (since issue 15) the model input, kept
  // as the object store keeps it (a raw file per image) for the embedding stage.
  const manifest = readImageModelManifest(config.models.dir, config.models.imageModel);
  const preparedDir = path.join(scratch, 'model-inputs');
  fs.mkdirSync(preparedDir);
  const preparedFile = (i: number) => path.join(preparedDir, `${i}.raw`);
  let prepared = 0;
  await timed('ingest decode (thumbnail+quality+model input)', files.length, results, async () => {
    for (const [i, file] of files.entries()) {
      const facts = await analyzeImage(file, { size: manifest.size, resize: manifest.resize });
      if (facts.modelInput) {
        fs.writeFileSync(preparedFile(i), facts.modelInput);
        prepared++;
      }
    }
  });
  // The worker's encoder: INFERENCE_THREADS threads, each batch split into runs over them (lib/ml/encoderThread).
  const encoder = await loadImageEncoderInThread(config.models.dir, config.models.imageModel, config.models.inferenceThreads);
  let fromPrepared: EncodedImage[] | undefined;
  if (prepared === files.length) {
    fromPrepared = await timed('embed (batch 16, inference threads) from the prepared input', files.length, results, async () => {
      const out: EncodedImage[] = [];
      for (let i = 0; i < files.length; i += 16) {
        out.push(...(await encoder.encodePixels(files.slice(i, i + 16).map((_, j) => fs.readFileSync(preparedFile(i + j))))));
      }
      return out;
    });
  }
  const decoded: EncodedImage[] = await timed('embed (batch 16, inference threads) decoding the original', files.length, results, async () => {
    const out: EncodedImage[] = [];
    for (let i = 0; i < files.length; i += 16) out.push(...(await encoder.encodeAndClassify(files.slice(i, i + 16))));
    return out;
  });
  const agreement = fromPrepared && embeddingAgreement(fromPrepared, decoded);
  setAgreement(agreement);
  if (agreement) say(`  embeddings, prepared input vs decoding the original: ${JSON.stringify(agreement)}`);
  const vectors = decoded.map((encoded) => encoded.vector);
  await encoder.close();

  const db = createDb(await ensureDatabase(postgresUrl, 'bench'), 5);
  await migrateLatest(db);
  const store = createEmbeddedVectorStore({ rows: createVectorPointRows(db) });
  const ids = files.map((_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
  await store.ensureCollection('bench', encoder.dim);
  await timed('vector upsert', files.length, results, async () => {
    for (let i = 0; i < files.length; i += 256) {
      await store.upsert('bench', ids.slice(i, i + 256).map((id, j) => ({ id, vector: vectors[i + j] })));
    }
  });
  const neighbours = await timed('index build + kNN graph (k=10)', files.length, results, async () => {
    const all: Awaited<ReturnType<typeof store.searchMany>> = [];
    for (let i = 0; i < files.length; i += 256) all.push(...(await store.searchMany('bench', vectors.slice(i, i + 256), 11)));
    return all;
  });
  const indexOf = new Map(ids.map((id, i) => [id, i]));
  await timed('cluster (5 thresholds) + scores', files.length, results, async () => {
    const edges: SimilarityEdge[] = [];
    const items: NeighbourItem[] = neighbours.map((hits, a) => {
      const list = hits.filter((hit) => hit.id !== ids[a]).map((hit) => ({ index: indexOf.get(hit.id)!, similarity: 1 - hit.distance }));
      for (const n of list) edges.push({ a, b: n.index, similarity: n.similarity });
      return { neighbours: list };
    });
    clusterByThresholds(files.length, edges);
    scoreNeighbours(items, ids);
  });
  await store.close();
  await db.destroy();
}

async function main(): Promise<void> {
  say(`bench:ingest: ${count} images on ${os.cpus()[0].model}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`);
  const files = await prepareImages(count);
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  installSdkLogger(createLogger('bench-sdk', 'error'));
  const results: StageResult[] = [];
  const endToEnd: EndToEndResult[] = [];
  let bigUpload: Awaited<ReturnType<typeof measureOneBigUpload>> | undefined;
  let agreement: ReturnType<typeof embeddingAgreement> | undefined;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingest-'));
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
  try {
    if (!endToEndOnly) await measureStages(files, results, postgres.url, scratch, (value) => (agreement = value));
    if (!stagesOnly) {
      say('end to end (upload over HTTP, DATASET_CREATION workflow on real worker processes):');
      const variants = endToEndVariants(scratch);
      // Rounds alternate the variants (and fastdup before each), so a shared machine's slow minutes fall on all of them.
      for (let run = 0; run < rounds * variants.length; run++) {
        const variant = variants[run % variants.length];
        let window: { fromUs: number; toUs: number } | undefined;
        // fastdup on the same files right before each run (before its stack starts: fastdup blocks this process):
        // the machine may be shared, so each run has a peer of its own.
        const peer = runFastdup(files);
        const stack = await startBenchStack(scratch, postgres.url, `bench_e2e_${run}`, variant.workers);
        try {
          if (run === 0) {
            bigUpload = await measureOneBigUpload(stack.apiUrl, await prepareLargePhotos(files));
            say(`  one request with ${bigUpload.files} files, ${bigUpload.total_mb} MiB: ${bigUpload.seconds.toFixed(1)} s, server process memory grew ${bigUpload.rss_growth_mb} MiB`);
          }
          // CPU of this process tree (API, workers, Temporal, Postgres) from process_files on: the upload before
          // it is not in the timed window, and not in the CPU either.
          const postmaster = postmasterOf(path.join(scratch, 'postgres'));
          const cpuOf = () => ({
            total: treeCpuSeconds(process.pid),
            workers: stack.workerPids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0),
            postgres: treeCpuSeconds(postmaster),
          });
          const threadsOf = () => {
            const sum: Record<string, number> = {};
            for (const pid of stack.workerPids) for (const [name, seconds] of Object.entries(threadCpuSeconds(pid))) sum[name] = (sum[name] ?? 0) + seconds;
            return sum;
          };
          let threadsAtStart = threadsOf();
          let cpuAtStart = cpuOf();
          let loadAtStart = os.loadavg()[0];
          let windowFromUs = 0;
          const { seconds, taskId } = await createDatasetOverHttp(stack.apiUrl, `bench-${count}-${run}`, files, () => {
            threadsAtStart = threadsOf();
            cpuAtStart = cpuOf();
            loadAtStart = os.loadavg()[0];
            windowFromUs = Number(process.hrtime.bigint() / 1000n);
          });
          window = { fromUs: windowFromUs, toUs: Number(process.hrtime.bigint() / 1000n) };
          const cpuAtEnd = cpuOf();
          const threadsAtEnd = threadsOf();
          const byThread = Object.fromEntries(
            Object.entries(threadsAtEnd)
              .map(([name, seconds]) => [name, Number((((seconds - (threadsAtStart[name] ?? 0)) * 1000) / files.length).toFixed(2))] as const)
              .filter(([, ms]) => ms >= 0.05)
              .sort((a, b) => b[1] - a[1]),
          );
          const loadAverage = { start: Number(loadAtStart.toFixed(2)), end: Number(os.loadavg()[0].toFixed(2)) };
          const cpuMs = ((cpuAtEnd.total - cpuAtStart.total) * 1000) / files.length;
          const msPerImage = (key: 'workers' | 'postgres') => Number((((cpuAtEnd[key] - cpuAtStart[key]) * 1000) / files.length).toFixed(1));
          const cpuByProcess = { workers: msPerImage('workers'), postgres: msPerImage('postgres'), api_temporal_and_bench: Number((cpuMs - msPerImage('workers') - msPerImage('postgres')).toFixed(1)) };
          // The baseline's steps too: where a before/after in one run differs is read from the two timelines.
          const { split, timeline } = await taskHistory(stack.temporalAddress, taskId);
          const imagesPerSecond = files.length / seconds;
          endToEnd.push({
            variant: variant.name,
            round: Math.floor(run / variants.length) + 1,
            seconds,
            images_per_second: imagesPerSecond,
            cpu_ms_per_image: cpuMs,
            cpu_ms_per_image_by_process: cpuByProcess,
            fastdup_just_before: peer,
            ratio_vs_fastdup: peer ? Number((imagesPerSecond / peer.images_per_second).toFixed(3)) : undefined,
            ...(stack.workerPids.length > 0 ? { worker_cpu_ms_per_image_by_thread: byThread } : {}),
            chunks_by_worker: split,
            load_average: loadAverage,
            timeline,
          });
          const ratio = peer ? `  (fastdup just before: ${peer.images_per_second.toFixed(1)} images/s, ratio ${(imagesPerSecond / peer.images_per_second).toFixed(2)})` : '';
          say(`  ${variant.name.padEnd(60)} ${seconds.toFixed(2).padStart(8)} s  ${imagesPerSecond.toFixed(1).padStart(8)} images/s  ${cpuMs.toFixed(1).padStart(6)} CPU ms/image${ratio}`);
          say(`    CPU ms per image by process: ${JSON.stringify(cpuByProcess)}; load average ${loadAverage.start} → ${loadAverage.end}`);
          if (stack.workerPids.length > 0) say(`    worker CPU ms per image by thread: ${JSON.stringify(byThread)}`);
          if (split) say(`    chunks by worker: ${JSON.stringify(split)}`);
          if (timeline) say(`    steps: ${timeline.map(({ step, seconds }) => `${step} ${seconds} s`).join(', ')}`);
        } finally {
          await stack.stop();
        }
        const profileDir = variant.workers[0].nodeFlags && path.join(scratch, 'profile');
        if (profileDir && window) {
          const [file] = fs.readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'));
          const summary = summariseProfile(path.join(profileDir, file), window.fromUs, window.toUs, [projectRoot()]);
          if (options['profile-out']) fs.copyFileSync(path.join(profileDir, file), options['profile-out']);
          endToEnd[endToEnd.length - 1].cpu_profile = summary;
          say(`    worker CPU profile: ${JSON.stringify(summary.by_area.slice(0, 8))}`);
          say(`    idle ${summary.idle_pct} %; top functions: ${JSON.stringify(summary.top_self.slice(0, 15))}`);
        }
      }
    }
  } finally {
    await postgres.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  if (stagesOnly) {
    const stages = { date: new Date().toISOString(), machine: benchMachine(), images: files.length, model: config.models.imageModel, stages: results, embedding_agreement: agreement ?? null };
    writeReport('ingest', `ingest-${count}-stages`, stages);
    return;
  }
  // A variant's median run over the rounds, by its ratio to the fastdup run just before it (by its speed without fastdup).
  const medianRun = (variant: string) => {
    const speed = (run: EndToEndResult) => run.ratio_vs_fastdup ?? run.images_per_second;
    const runs = endToEnd.filter((run) => run.variant === variant).sort((a, b) => speed(a) - speed(b));
    return runs[Math.floor(runs.length / 2)];
  };
  const variantNames = [...new Set(endToEnd.map((run) => run.variant))];
  const current = medianRun(ONE_WORKER);
  const fastdup = current.fastdup_just_before;
  const report = {
    date: new Date().toISOString(),
    machine: benchMachine(),
    images: files.length,
    model: config.models.imageModel,
    stages: results,
    end_to_end: endToEnd,
    embedding_agreement: agreement ?? null,
    peak_rss_mb: Math.round(peakRss / 2 ** 20),
    one_big_upload: bigUpload,
    fastdup: fastdup ?? 'not installed (pip install fastdup to compare)',
    rounds,
    ratio_vs_fastdup: current.ratio_vs_fastdup ?? null,
    ratios_vs_fastdup: Object.fromEntries(variantNames.map((variant) => [variant, medianRun(variant).ratio_vs_fastdup ?? null])),
  };
  if (rounds > 1) {
    for (const variant of variantNames) {
      const median = medianRun(variant);
      say(`  median of ${rounds} rounds, ${variant}: ${median.seconds.toFixed(2)} s, ${median.images_per_second.toFixed(1)} images/s${median.ratio_vs_fastdup === undefined ? '' : `, ratio ${median.ratio_vs_fastdup.toFixed(2)} (round ${median.round})`}`);
    }
  }
  say(`peak RSS of this process (API + worker + stages): ${report.peak_rss_mb} MiB`);
  if (fastdup) say(`fastdup: ${fastdup.images_per_second.toFixed(1)} images/s; ours end to end / fastdup = ${report.ratio_vs_fastdup!.toFixed(2)}`);
  writeReport('ingest', `ingest-${count}`, report);
}

runBench(async () => {
  try {
    await main();
  } finally {
    clearInterval(sampler);
  }
});
