/**
 * `npm run bench:ingest [-- N]`: indexes N images (real photos from registry packages plus
 * generated variants) and reports images/s per stage, the end-to-end DATASET_CREATION run through
 * the real API, worker, Temporal and Postgres, and peak memory. Runs fastdup on the same images
 * when it is installed (bench/.venv: `python3 -m venv bench/.venv && bench/.venv/bin/pip install
 * fastdup==2.54`, or FASTDUP_PYTHON) and prints the ratio. Results go to
 * bench/results/ingest-<N>-<date>.{json,md}.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { analyzeImage } from '../../lib/media/imageAnalysis';
import { loadImageEncoder } from '../../lib/ml/imageEncoder';
import { clusterByThresholds, type SimilarityEdge } from '../../lib/clustering/clusterByThresholds';
import { scoreNeighbours, type NeighbourItem } from '../../lib/quality/neighbourScores';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { createDb, migrateLatest } from '../../db/connection';
import { installSdkLogger } from '../../workers/main';
import { benchDir, benchMachine, createDatasetOverHttp, freePort, prepareImages, say, startBenchStack, writeReport } from './common';

const count = Number(process.argv[2] ?? 2000);

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);

interface StageResult {
  stage: string;
  seconds: number;
  images_per_second: number;
}

async function timed<T>(stage: string, items: number, results: StageResult[], fn: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  const value = await fn();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  results.push({ stage, seconds, images_per_second: items / seconds });
  say(`  ${stage.padEnd(28)} ${seconds.toFixed(2).padStart(8)} s  ${(items / seconds).toFixed(1).padStart(8)} images/s`);
  return value;
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

async function main(): Promise<void> {
  say(`bench:ingest: ${count} images on ${os.cpus()[0].model}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`);
  const files = await prepareImages(count);
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  installSdkLogger(createLogger('bench-sdk', 'error'));
  const results: StageResult[] = [];
  let bigUpload: Awaited<ReturnType<typeof measureOneBigUpload>> | undefined;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingest-'));
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
  try {
    say('stages (one process, same code the activities run):');
    await timed('decode+thumbnail+quality', files.length, results, async () => {
      for (const file of files) await analyzeImage(file);
    });
    const encoder = await loadImageEncoder(config.models.dir, config.models.imageModel, config.models.inferenceThreads);
    const vectors: Float32Array[] = await timed('embed (batch 16)', files.length, results, async () => {
      const out: Float32Array[] = [];
      for (let i = 0; i < files.length; i += 16) out.push(...(await encoder.encode(files.slice(i, i + 16))));
      return out;
    });
    await encoder.close();

    const db = createDb(await ensureDatabase(postgres.url, 'bench'), 5);
    await migrateLatest(db);
    const store = createEmbeddedVectorStore({ rows: createVectorPointRows(db), cacheDir: path.join(scratch, 'vectors') });
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

    say('end to end (upload over HTTP, DATASET_CREATION workflow on the real worker):');
    const stack = await startBenchStack(scratch, postgres.url, 'bench_e2e');
    try {
      bigUpload = await measureOneBigUpload(stack.apiUrl, await prepareLargePhotos(files));
      say(`  one request with ${bigUpload.files} files, ${bigUpload.total_mb} MiB: ${bigUpload.seconds.toFixed(1)} s, server process memory grew ${bigUpload.rss_growth_mb} MiB`);
      const { seconds } = await createDatasetOverHttp(stack.apiUrl, `bench-${count}`, files);
      results.push({ stage: 'end to end (process_files → READY)', seconds, images_per_second: files.length / seconds });
      say(`  ${'process_files → READY'.padEnd(28)} ${seconds.toFixed(2).padStart(8)} s  ${(files.length / seconds).toFixed(1).padStart(8)} images/s`);
    } finally {
      await stack.stop();
    }
  } finally {
    await postgres.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  const fastdup = runFastdup(files);
  const endToEnd = results[results.length - 1];
  const report = {
    date: new Date().toISOString(),
    machine: benchMachine(),
    images: files.length,
    model: config.models.imageModel,
    stages: results,
    peak_rss_mb: Math.round(peakRss / 2 ** 20),
    one_big_upload: bigUpload,
    fastdup: fastdup ?? 'not installed (pip install fastdup to compare)',
    ratio_vs_fastdup: fastdup ? endToEnd.images_per_second / fastdup.images_per_second : null,
  };
  say(`peak RSS of this process (API + worker + stages): ${report.peak_rss_mb} MiB`);
  if (fastdup) say(`fastdup: ${fastdup.images_per_second.toFixed(1)} images/s; ours end to end / fastdup = ${report.ratio_vs_fastdup!.toFixed(2)}`);
  writeReport(`ingest-${count}`, report);
}

main()
  .catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 1;
  })
  .finally(() => clearInterval(sampler));
