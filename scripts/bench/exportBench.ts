/**
 * `npm run bench:export [-- --sizes 10000,100000 --images 2000]`: exports through the real API and
 * a worker running as its own process (node --import tsx workers/main.ts), timing each export from
 * the request to COMPLETED as a client polling export_status sees it, and reading the worker's peak
 * RSS during the export from /proc (VmHWM, reset before each export through /proc/<pid>/clear_refs).
 * - each size: a READY dataset of N media built straight in Postgres (syntheticDataset.ts: 5 cluster
 *   levels, issues, labels, tags, captions; a quarter get custom metadata), exported as JSON and as
 *   Parquet without images;
 * - 2,000 real photos (variants of bench/data/photos) indexed by the real DATASET_CREATION
 *   workflow, exported with their images as JSON (include_images=true), COCO, YOLO and Hugging Face.
 * Each archive is downloaded through its download_uri and checked (entries, records). Results go to
 * bench/results/export/export-<date>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type * as Hyparquet from 'hyparquet' with { 'resolution-mode': 'import' };
import yauzl from 'yauzl';
import { startApiServer } from '../../api/server';
import { createDb, type Db } from '../../db/connection';
import { loadConfig } from '../../lib/config';
import { carriesImages, exportFormatOf, type ExportFormat } from '../../lib/export/formats';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { spawnManaged, type ManagedProcess } from '../../lib/embedded/process';
import { startTemporalDevServer } from '../../lib/embedded/temporal';
import { createLogger } from '../../lib/logger';
import { projectRoot } from '../../lib/projectRoot';
import { benchMachine, createDatasetOverHttp, freePort, prepareImages, say, writeReport, runBench } from './common';
import { seedSyntheticDataset } from './syntheticDataset';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parquetMetadata } = require('hyparquet') as typeof Hyparquet;

const { values: args } = parseArgs({
  options: { sizes: { type: 'string', default: '10000,100000' }, images: { type: 'string', default: '2000' } },
});
const sizes = args.sizes.split(',').map(Number);
const imageCount = Number(args.images);
const DIM = 1280;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => bytes / 2 ** 20;

/** VmRSS and VmHWM (the peak since the last reset) of a process, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** Starts the peak over from the current RSS (Linux: "5" to clear_refs resets VmHWM). */
function resetPeak(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** The entries of a ZIP on disk: names, sizes, and the bytes of the one named `read`. */
function zipEntries(file: string, read: string): Promise<{ names: string[]; uncompressed: number; content?: Buffer }> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const names: string[] = [];
      let uncompressed = 0;
      let content: Buffer | undefined;
      zip.on('error', reject);
      zip.on('end', () => resolve({ names, uncompressed, content }));
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        uncompressed += entry.uncompressedSize;
        if (entry.fileName !== read) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            content = Buffer.concat(chunks);
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

interface ExportRun {
  dataset: string;
  media: number;
  format: string;
  include_images: boolean;
  seconds: number;
  archive_mb: number;
  uncompressed_mb: number;
  mb_per_second: number;
  media_per_second: number;
  records: number;
  entries: number;
  worker_rss_before_mb: number;
  worker_peak_rss_mb: number;
  worker_peak_over_before_mb: number;
  download_seconds: number;
}

/** How many media the metadata of an archive describes (YOLO: its label files; the bench's media are all pictures). */
function recordsIn(format: ExportFormat, names: string[], metadata: Buffer): number {
  switch (format) {
    case 'json':
      return (JSON.parse(metadata.toString('utf8')) as unknown[]).length;
    case 'coco':
      return (JSON.parse(metadata.toString('utf8')) as { images: unknown[] }).images.length;
    case 'yolo':
      return names.filter((name) => name.startsWith('labels/')).length;
    case 'parquet':
    case 'hf':
      return Number(parquetMetadata(new Uint8Array(metadata).buffer).num_rows);
    case 'imagefolder':
      return names.filter((name) => name !== 'classes.json' && name !== 'label_quality.json').length;
  }
}

/** One export as a client does it: request, poll export_status, download; the worker's memory around it. */
async function runExport(
  options: { apiUrl: string; worker: ManagedProcess; scratch: string; datasetId: string; label: string; media: number },
  format: ExportFormat,
  includeImages: boolean,
): Promise<ExportRun> {
  const { apiUrl, worker, datasetId } = options;
  const pid = worker.child.pid!;
  const before = memoryOf(pid).rss;
  resetPeak(pid);
  const started = process.hrtime.bigint();
  const query = new URLSearchParams({ file_name: `${options.label}-${format}`, export_format: format, include_images: String(includeImages) });
  const startResponse = await fetch(`${apiUrl}/dataset/${datasetId}/export_context_async?${query}`);
  if (startResponse.status !== 200) throw new Error(`export refused: ${startResponse.status} ${await startResponse.text()}`);
  const { id } = (await startResponse.json()) as { id: string };
  let status: { status: string; download_uri: string | null; error_message: string | null };
  for (;;) {
    status = (await (await fetch(`${apiUrl}/dataset/${datasetId}/export_status?export_task_id=${id}`)).json()) as typeof status;
    if (status.status === 'COMPLETED' || status.status === 'FAILED') break;
    await sleep(100);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const peak = memoryOf(pid).peak;
  if (status.status !== 'COMPLETED') throw new Error(`export failed: ${status.error_message}`);

  const archive = path.join(options.scratch, `${options.label}-${format}.zip`);
  const downloadStarted = process.hrtime.bigint();
  // The link names PUBLIC_URL (localhost:8080 by default); the bench's API listens on a port of its own.
  const link = new URL(status.download_uri!);
  const download = await fetch(new URL(link.pathname + link.search, apiUrl));
  if (download.status !== 200 || !download.body) throw new Error(`download failed: ${download.status}`);
  await pipeline(Readable.fromWeb(download.body as import('node:stream/web').ReadableStream), fs.createWriteStream(archive));
  const downloadSeconds = Number(process.hrtime.bigint() - downloadStarted) / 1e9;
  const bytes = fs.statSync(archive).size;

  const { names, uncompressed, content } = await zipEntries(archive, format === 'hf' ? 'data/train-00000-of-00001.parquet' : exportFormatOf(format).layout.fileName);
  const records = recordsIn(format, names, content!);
  if (records !== options.media) throw new Error(`${options.label} ${format}: ${records} records for ${options.media} media`);
  const images = names.filter((name) => name.startsWith('images/')).length;
  if (images !== (carriesImages(format, includeImages) && format !== 'hf' ? options.media : 0)) {
    throw new Error(`${options.label} ${format}: ${images} images for ${options.media} media`);
  }
  fs.rmSync(archive);

  const run: ExportRun = {
    dataset: options.label,
    media: options.media,
    format,
    include_images: includeImages,
    seconds,
    archive_mb: mib(bytes),
    uncompressed_mb: mib(uncompressed),
    mb_per_second: mib(bytes) / seconds,
    media_per_second: options.media / seconds,
    records,
    entries: names.length,
    worker_rss_before_mb: mib(before),
    worker_peak_rss_mb: mib(peak),
    worker_peak_over_before_mb: mib(peak - before),
    download_seconds: downloadSeconds,
  };
  say(
    `  ${options.label} ${format}${includeImages ? ' + images' : ''}: ${seconds.toFixed(1)} s, ${run.archive_mb.toFixed(1)} MB ` +
      `(${run.mb_per_second.toFixed(1)} MB/s, ${Math.round(run.media_per_second)} media/s), worker peak RSS ${run.worker_peak_rss_mb.toFixed(0)} MB ` +
      `(${run.worker_rss_before_mb.toFixed(0)} MB before)`,
  );
  return run;
}

/** A quarter of the synthetic media get custom metadata, as an import would give them. */
async function addCustomMetadata(db: Db, versionId: string): Promise<void> {
  await db.raw(
    `UPDATE media SET custom_metadata = jsonb_build_object('camera', 'bench-cam', 'iso', 100 + abs(hashtext(id::text)) % 3200, 'site', 'north')
     WHERE version_id = ? AND abs(hashtext(id::text)) % 4 = 0`,
    [versionId],
  );
}

async function main(): Promise<void> {
  say(`bench:export: ${sizes.join(', ')} synthetic media (json, parquet) and ${imageCount} real images (json, coco, yolo, hf with the images) on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-export-'));
  const images = imageCount > 0 ? await prepareImages(imageCount) : [];
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
  const temporal = await startTemporalDevServer({ dataDir: scratch, port: freePort(), namespace: 'default' });
  const env = {
    LOG_LEVEL: 'info',
    DATA_DIR: path.join(scratch, 'data'),
    DATABASE_URL: await ensureDatabase(postgres.url, 'bench_export'),
    TEMPORAL_ADDRESS: temporal.address,
    MODELS_DIR: path.join(projectRoot(), '.tools', 'models'),
    TASK_QUEUE: 'bench-export',
    PIPELINE_PORT: '0',
  };
  const config = loadConfig({ ...process.env, ...env, LOG_LEVEL: 'silent', API_HOST: '127.0.0.1', API_PORT: '0' });
  const api = await startApiServer(config, createLogger('bench-api', 'silent'));
  const apiUrl = `http://127.0.0.1:${api.port}/api/v1`;
  const workerLog = path.join(scratch, 'worker.log');
  const log = fs.openSync(workerLog, 'a');
  const worker = spawnManaged(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: projectRoot(),
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const db = createDb(env.DATABASE_URL, 4);
  try {
    const until = Date.now() + 180_000;
    while (!fs.readFileSync(workerLog, 'utf8').includes('worker running')) {
      if (worker.child.exitCode !== null || Date.now() > until) throw new Error(`the worker did not start: ${fs.readFileSync(workerLog, 'utf8').slice(-2000)}`);
      await sleep(250);
    }
    const runs: ExportRun[] = [];
    const seeding: Record<string, number> = {};
    for (const size of sizes) {
      const started = Date.now();
      // Seeding a second dataset, the planner believes the statistics of the first (its new version
      // "has no rows") and nests loops over 100,000 × 100,000 rows: one connection without them.
      const seedDb = createDb(env.DATABASE_URL, 1);
      let seeded;
      try {
        await seedDb.raw('SET enable_nestloop = off');
        seeded = await seedSyntheticDataset(seedDb, size, DIM);
        await addCustomMetadata(seedDb, seeded.versionId);
      } finally {
        await seedDb.destroy();
      }
      const { datasetId } = seeded;
      seeding[String(size)] = (Date.now() - started) / 1000;
      say(`${size} synthetic media seeded in ${seeding[String(size)].toFixed(1)} s`);
      for (const format of ['json', 'parquet'] as const) {
        runs.push(await runExport({ apiUrl, worker, scratch, datasetId, label: `synthetic-${size}`, media: size }, format, false));
      }
    }
    let indexing: { seconds: number } | undefined;
    if (images.length > 0) {
      const created = await createDatasetOverHttp(apiUrl, 'bench-export-images', images);
      indexing = { seconds: created.seconds };
      say(`${images.length} real images indexed in ${created.seconds.toFixed(1)} s`);
      const [{ count }] = await db('media').join('datasets', 'datasets.head_version_id', 'media.version_id').where('datasets.id', created.datasetId).count({ count: '*' });
      // The formats that carry the images, side by side on the same dataset: JSON + images/ is the peer.
      for (const format of ['json', 'coco', 'yolo', 'hf'] as const) {
        runs.push(await runExport({ apiUrl, worker, scratch, datasetId: created.datasetId, label: `images-${images.length}`, media: Number(count) }, format, true));
      }
    }
    writeReport('export', `export-${[...sizes, `images${imageCount}`].join('-')}`, {
      date: new Date().toISOString(),
      machine: benchMachine(),
      load_average_at_start: os.loadavg(),
      method:
        'Real API in this process, worker as its own process (node --import tsx workers/main.ts), embedded Postgres and Temporal dev server. ' +
        'Seconds: from the export request to export_status COMPLETED (polled every 100 ms). MB/s: archive bytes / seconds. Worker peak RSS: ' +
        'VmHWM of the worker process during the export, reset through /proc/<pid>/clear_refs just before the request. Synthetic datasets are ' +
        'built in Postgres (syntheticDataset.ts, a quarter with custom metadata); the image dataset is indexed by the real DATASET_CREATION workflow. ' +
        'Every archive is downloaded through its download_uri and its records counted.',
      seeding_seconds: seeding,
      image_indexing: indexing,
      runs,
    } as { date: string });
  } finally {
    await db.destroy();
    await worker.stop();
    await api.close();
    await temporal.stop();
    await postgres.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
