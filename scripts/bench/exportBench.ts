/**
 * `npm run bench:export [-- --sizes 10000,100000 --images 2000]` or `npm run bench:export -- --labelled 100000`:
 * exports through the real API and a worker running as its own process (node --import tsx workers/main.ts),
 * timing each export from the request to COMPLETED as a client polling export_status sees it, and reading
 * the worker's peak RSS during the export from /proc (VmHWM, reset before each export through /proc/<pid>/clear_refs).
 * - each size: a READY dataset of N media built straight in Postgres (syntheticDataset.ts: 5 cluster
 *   levels, issues, labels, tags, captions; a quarter get custom metadata), exported as JSON and as
 *   Parquet without images;
 * - 2,000 real photos (variants of bench/data/photos) indexed by the real DATASET_CREATION
 *   workflow, exported with their images as JSON (include_images=true), COCO, YOLO and Hugging Face.
 * Each archive is downloaded through its download_uri and checked (entries, records). Results go to
 * bench/results/export/export-<date>.json.
 *
 * With `--labelled N` (instead of the above; the issue's figure is N = 100000): N media built in Postgres
 * whose files are the 53 eval photos (scripts/fetch-eval-photos.sh), media n being photo n mod 53 with a
 * JPEG comment naming n (bytes of its own, as in a real dataset), stored in the object store as ingestion
 * stores them, with the user's labels (10 classes in a declared label field, train/val/test 8:1:1 in a
 * declared split field); exported with their images as COCO, YOLO, Hugging Face and ImageFolder, each
 * archive's images per split and class checked against the seeded ones. The peer, in the same run on the
 * same files: Python's zipfile storing them (ZIP_STORED, as exports store images) before and after the
 * exports. Results go to bench/results/export/export-labelled-N-<date>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type * as Hyparquet from 'hyparquet' with { 'resolution-mode': 'import' };
import yauzl from 'yauzl';
import YAML from 'yaml';
import { startApiServer } from '../../api/server';
import { createDb, type Db } from '../../db/connection';
import { loadConfig } from '../../lib/config';
import { carriesImages, exportFormatOf, type ExportFormat } from '../../lib/export/formats';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { spawnManaged, type ManagedProcess } from '../../lib/embedded/process';
import { startTemporalDevServer } from '../../lib/embedded/temporal';
import { createLogger } from '../../lib/logger';
import { projectRoot } from '../../lib/projectRoot';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { blobKey } from '../../lib/storage/objectStore';
import { benchMachine, createDatasetOverHttp, freePort, prepareImages, say, timed, writeReport, runBench } from './common';
import { labelSyntheticMedia, seedSyntheticDataset, storePhotoFiles, type ClassCounts } from './syntheticDataset';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { asyncBufferFromFile, parquetMetadata, parquetMetadataAsync, parquetReadObjects } = require('hyparquet') as typeof Hyparquet;

const { values: args } = parseArgs({
  options: { sizes: { type: 'string', default: '10000,100000' }, images: { type: 'string', default: '2000' }, labelled: { type: 'string' } },
});
const sizes = args.sizes.split(',').map(Number);
const imageCount = Number(args.images);
const labelled = args.labelled === undefined ? null : Number(args.labelled);
const CLASSES = ['airplane', 'bird', 'car', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck'];
const evalPhotosDir = path.join(projectRoot(), '.tools', 'eval-photos');
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

/** What to keep of a ZIP entry: its bytes in memory, its bytes written to a file, or nothing. */
type Take = 'memory' | { file: string } | null;

/** The entries of a ZIP on disk: names, sizes, and the bytes of those `take` asks for. */
function zipEntries(file: string, take: (name: string) => Take): Promise<{ names: string[]; uncompressed: number; contents: Map<string, Buffer> }> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const names: string[] = [];
      const contents = new Map<string, Buffer>();
      let uncompressed = 0;
      zip.on('error', reject);
      zip.on('end', () => resolve({ names, uncompressed, contents }));
      zip.on('entry', (entry: yauzl.Entry) => {
        names.push(entry.fileName);
        uncompressed += entry.uncompressedSize;
        const wanted = take(entry.fileName);
        if (wanted === null) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          if (wanted !== 'memory') {
            pipeline(stream, fs.createWriteStream(wanted.file)).then(() => zip.readEntry(), reject);
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            contents.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** An archive's Hugging Face Parquet files (data/<split>-00000-of-00001.parquet), extracted to `dir` for reading. */
const hfParquet = /^data\/(\w+)-00000-of-00001\.parquet$/;

/** The entries a check reads: the metadata file, and with `classes` the per-split files each format counts its classes in. */
function entriesToRead(format: ExportFormat, dir: string, classes: boolean): (name: string) => Take {
  const metadata = exportFormatOf(format).layout.fileName;
  return (name) => {
    if (format === 'hf') return hfParquet.test(name) ? { file: path.join(dir, name.replaceAll('/', '_')) } : null;
    if (name === metadata) return 'memory';
    if (classes && format === 'coco' && name.startsWith('annotations/instances_')) return 'memory';
    if (classes && format === 'yolo' && name.startsWith('labels/')) return 'memory';
    return null;
  };
}

/** The Hugging Face Parquet files extracted by entriesToRead, by split. */
function hfFiles(names: string[], dir: string): Array<{ split: string; file: string }> {
  return names.flatMap((name) => {
    const match = hfParquet.exec(name);
    return match ? [{ split: match[1], file: path.join(dir, name.replaceAll('/', '_')) }] : [];
  });
}

function addCount(counts: ClassCounts, split: string, label: string): void {
  const bySplit = (counts[split] ??= {});
  bySplit[label] = (bySplit[label] ?? 0) + 1;
}

/**
 * The images per split and class an archive holds, read as each format's reader takes them: COCO's
 * instances_<split>.json annotations by category, YOLO's labels/<split>/*.txt class ids by data.yaml's
 * names, the Hugging Face `label` column by its ClassLabel names, ImageFolder's <split>/<class>/ folders.
 */
async function classCountsIn(format: ExportFormat, names: string[], contents: Map<string, Buffer>, dir: string): Promise<ClassCounts> {
  const counts: ClassCounts = {};
  switch (format) {
    case 'coco':
      for (const [name, content] of contents) {
        const split = /^annotations\/instances_(\w+)\.json$/.exec(name)?.[1];
        if (!split) continue;
        const document = JSON.parse(content.toString('utf8')) as { annotations: Array<{ category_id: number }>; categories: Array<{ id: number; name: string }> };
        const category = new Map(document.categories.map((entry) => [entry.id, entry.name]));
        for (const annotation of document.annotations) addCount(counts, split, category.get(annotation.category_id)!);
      }
      return counts;
    case 'yolo': {
      const yamlNames = (YAML.parse(contents.get('data.yaml')!.toString('utf8')) as { names: string[] }).names;
      for (const [name, content] of contents) {
        const split = /^labels\/(\w+)\//.exec(name)?.[1];
        if (!split) continue;
        for (const line of content.toString('utf8').split('\n').filter(Boolean)) addCount(counts, split, yamlNames[Number(line.split(' ')[0])]);
      }
      return counts;
    }
    case 'hf':
      for (const { split, file } of hfFiles(names, dir)) {
        const buffer = await asyncBufferFromFile(file);
        const metadata = await parquetMetadataAsync(buffer);
        const features = JSON.parse(metadata.key_value_metadata!.find((entry) => entry.key === 'huggingface')!.value!) as { info: { features: { label: { names: string[] } } } };
        const rows = (await parquetReadObjects({ file: buffer, metadata, columns: ['label'] })) as Array<{ label: bigint | number }>;
        for (const row of rows) addCount(counts, split, features.info.features.label.names[Number(row.label)]);
      }
      return counts;
    case 'imagefolder':
      for (const name of names) {
        const [split, label, ...rest] = name.split('/');
        if (rest.length > 0) addCount(counts, split, label);
      }
      return counts;
    default:
      throw new Error(`${format} carries no classes`);
  }
}

/** Counts with their splits and classes in one order, to compare. */
const sortedCounts = (counts: ClassCounts) =>
  JSON.stringify(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)).map(([split, byClass]) => [split, Object.entries(byClass).sort(([a], [b]) => a.localeCompare(b))]));

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
  /** os.loadavg() (1, 5, 15 min) at the request and at COMPLETED: other work on the machine. */
  load_average_before: number[];
  load_average_after: number[];
  /** The archive's images per split and class equal the seeded ones. */
  classes_checked?: true;
}

/** How many media the metadata of an archive describes (YOLO: its label files; the bench's media are all pictures). */
async function recordsIn(format: ExportFormat, names: string[], contents: Map<string, Buffer>, dir: string): Promise<number> {
  const metadata = contents.get(exportFormatOf(format).layout.fileName)!;
  switch (format) {
    case 'json':
      return (JSON.parse(metadata.toString('utf8')) as unknown[]).length;
    case 'coco':
      return (JSON.parse(metadata.toString('utf8')) as { images: unknown[] }).images.length;
    case 'yolo':
      return names.filter((name) => name.startsWith('labels/')).length;
    case 'parquet':
      return Number(parquetMetadata(new Uint8Array(metadata).buffer).num_rows);
    case 'hf': {
      let rows = 0;
      for (const { file } of hfFiles(names, dir)) rows += Number((await parquetMetadataAsync(await asyncBufferFromFile(file))).num_rows);
      return rows;
    }
    case 'imagefolder':
      return imageEntries(format, names);
  }
}

/** The image files of an archive: under images/, or (ImageFolder) every entry but its two JSON files. */
function imageEntries(format: ExportFormat, names: string[]): number {
  if (format === 'imagefolder') return names.filter((name) => name !== 'classes.json' && name !== 'label_quality.json').length;
  return names.filter((name) => name.startsWith('images/')).length;
}

/** One export as a client does it: request, poll export_status, download; the worker's memory around it. */
async function runExport(
  options: { apiUrl: string; worker: ManagedProcess; scratch: string; datasetId: string; label: string; media: number; dataDir: string; classes?: ClassCounts },
  format: ExportFormat,
  includeImages: boolean,
): Promise<ExportRun> {
  const { apiUrl, worker, datasetId } = options;
  const pid = worker.child.pid!;
  const loadBefore = os.loadavg();
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
  const loadAfter = os.loadavg();
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

  const read = fs.mkdtempSync(path.join(options.scratch, 'read-'));
  const { names, uncompressed, contents } = await zipEntries(archive, entriesToRead(format, read, options.classes !== undefined));
  const records = await recordsIn(format, names, contents, read);
  if (records !== options.media) throw new Error(`${options.label} ${format}: ${records} records for ${options.media} media`);
  const images = imageEntries(format, names);
  if (images !== (carriesImages(format, includeImages) && format !== 'hf' ? options.media : 0)) {
    throw new Error(`${options.label} ${format}: ${images} images for ${options.media} media`);
  }
  if (options.classes) {
    const found = await classCountsIn(format, names, contents, read);
    if (sortedCounts(found) !== sortedCounts(options.classes)) {
      throw new Error(`${options.label} ${format}: images per split and class ${sortedCounts(found)}, seeded ${sortedCounts(options.classes)}`);
    }
  }
  fs.rmSync(read, { recursive: true });
  fs.rmSync(archive);
  // The stored copy too (a local object store under DATA_DIR): four archives of 100,000 photos would hold 20 GB.
  fs.rmSync(path.join(options.dataDir, 'objects', 'exports', id), { recursive: true, force: true });

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
    load_average_before: loadBefore,
    load_average_after: loadAfter,
    ...(options.classes && { classes_checked: true }),
  };
  say(
    `  ${options.label} ${format}${includeImages ? ' + images' : ''}: ${seconds.toFixed(1)} s, ${run.archive_mb.toFixed(1)} MB ` +
      `(${run.mb_per_second.toFixed(1)} MB/s, ${Math.round(run.media_per_second)} media/s), worker peak RSS ${run.worker_peak_rss_mb.toFixed(0)} MB ` +
      `(${run.worker_rss_before_mb.toFixed(0)} MB before), load ${loadAfter[0].toFixed(1)}${options.classes ? ', classes checked' : ''}`,
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

const METHOD =
  'Real API in this process, worker as its own process (node --import tsx workers/main.ts), embedded Postgres and Temporal dev server. ' +
  'Seconds: from the export request to export_status COMPLETED (polled every 100 ms). MB/s: archive bytes / seconds. Worker peak RSS: ' +
  'VmHWM of the worker process during the export, reset through /proc/<pid>/clear_refs just before the request. ';

interface ExportStack {
  apiUrl: string;
  worker: ManagedProcess;
  db: Db;
  databaseUrl: string;
  dataDir: string;
  scratch: string;
}

/** An embedded Postgres and Temporal, the API in this process and a worker process, in a scratch directory; all taken down after `body`. */
async function withExportStack(body: (stack: ExportStack) => Promise<void>): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-export-'));
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
    await body({ apiUrl: `http://127.0.0.1:${api.port}/api/v1`, worker, db, databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, scratch });
  } finally {
    await db.destroy();
    await worker.stop();
    await api.close();
    await temporal.stop();
    await postgres.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Seeds a dataset on one connection of its own. Seeding a second dataset, the planner believes the statistics of
 * the first (its new version "has no rows") and nests loops over 100,000 × 100,000 rows: the connection goes without them.
 */
async function seedDataset<T>(databaseUrl: string, seed: (db: Db) => Promise<T>): Promise<T> {
  const seedDb = createDb(databaseUrl, 1);
  try {
    await seedDb.raw('SET enable_nestloop = off');
    return await seed(seedDb);
  } finally {
    await seedDb.destroy();
  }
}

/** Synthetic datasets of `sizes` as JSON and Parquet without images, and `imageCount` real images with them. */
async function syntheticAndImages(stack: ExportStack): Promise<void> {
  const { apiUrl, worker, db, scratch, dataDir } = stack;
  say(`bench:export: ${sizes.join(', ')} synthetic media (json, parquet) and ${imageCount} real images (json, coco, yolo, hf with the images) on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const images = imageCount > 0 ? await prepareImages(imageCount) : [];
  const loadAtStart = os.loadavg();
  const runs: ExportRun[] = [];
  const seeding: Record<string, number> = {};
  for (const size of sizes) {
    const started = Date.now();
    const { datasetId } = await seedDataset(stack.databaseUrl, async (seedDb) => {
      const seeded = await seedSyntheticDataset(seedDb, size, DIM);
      await addCustomMetadata(seedDb, seeded.versionId);
      return seeded;
    });
    seeding[String(size)] = (Date.now() - started) / 1000;
    say(`${size} synthetic media seeded in ${seeding[String(size)].toFixed(1)} s`);
    for (const format of ['json', 'parquet'] as const) {
      runs.push(await runExport({ apiUrl, worker, scratch, dataDir, datasetId, label: `synthetic-${size}`, media: size }, format, false));
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
      runs.push(await runExport({ apiUrl, worker, scratch, dataDir, datasetId: created.datasetId, label: `images-${images.length}`, media: Number(count) }, format, true));
    }
  }
  writeReport('export', `export-${[...sizes, `images${imageCount}`].join('-')}`, {
    date: new Date().toISOString(),
    machine: benchMachine(),
    load_average_at_start: loadAtStart,
    method:
      METHOD +
      'Synthetic datasets are built in Postgres (syntheticDataset.ts, a quarter with custom metadata); the image dataset is indexed by the real ' +
      'DATASET_CREATION workflow. Every archive is downloaded through its download_uri and its records counted.',
    seeding_seconds: seeding,
    image_indexing: indexing,
    runs,
  } as { date: string });
}

/** The peer: Python's zipfile storing each media's file (in the object store) under images/<file name>, into one ZIP. */
async function zipfilePeer(stack: ExportStack, versionId: string): Promise<{ seconds: number; archive_mb: number; entries: number }> {
  const rows: Array<{ file_name: string; blob_sha256: string }> = await stack.db('media').where({ version_id: versionId }).orderBy('id').select('file_name', 'blob_sha256');
  const list = path.join(stack.scratch, 'peer-files.tsv');
  fs.writeFileSync(list, rows.map((row) => `${path.join(stack.dataDir, 'objects', blobKey(row.blob_sha256))}\timages/${row.file_name}\n`).join(''));
  const archive = path.join(stack.scratch, 'peer.zip');
  const script =
    'import sys, zipfile\n' +
    'with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED, allowZip64=True) as z:\n' +
    '    for line in open(sys.argv[1]):\n' +
    '        source, name = line.rstrip("\\n").split("\\t")\n' +
    '        z.write(source, name)\n';
  const { seconds } = await timed(async () => execFileSync('python3', ['-c', script, list, archive], { stdio: 'inherit' }));
  const result = { seconds, archive_mb: mib(fs.statSync(archive).size), entries: rows.length };
  fs.rmSync(archive);
  say(`  peer (python zipfile, stored): ${seconds.toFixed(1)} s, ${result.archive_mb.toFixed(1)} MB`);
  return result;
}

/** `count` media showing the eval photos with the user's labels and splits, exported with their images in every training format. */
async function labelledPhotos(stack: ExportStack, count: number): Promise<void> {
  const { apiUrl, worker, scratch, dataDir } = stack;
  say(`bench:export --labelled: ${count} labelled media of the eval photos (coco, yolo, hf, imagefolder with the images) on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  execFileSync('bash', [path.join(projectRoot(), 'scripts', 'fetch-eval-photos.sh')], { stdio: 'inherit' });
  const jpegs = fs
    .readdirSync(evalPhotosDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.jpe?g$/i.test(entry.name))
    .map((entry) => path.join(evalPhotosDir, entry.name))
    .sort();
  const loadAtStart = os.loadavg();
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir });
  const seeding = await timed(async () => {
    const files = await storePhotoFiles(createObjectStore(config), jpegs, count);
    return seedDataset(stack.databaseUrl, async (seedDb) => {
      const seeded = await seedSyntheticDataset(seedDb, count, DIM);
      return { ...seeded, classes: await labelSyntheticMedia(seedDb, seeded.versionId, files, CLASSES), bytes: files.media.reduce((sum, file) => sum + file.sizeBytes, 0) };
    });
  });
  const { datasetId, versionId, classes, bytes } = seeding.value;
  say(`${count} labelled media from ${jpegs.length} photos (${mib(bytes).toFixed(0)} MB of files) seeded in ${seeding.seconds.toFixed(1)} s: ${JSON.stringify(classes)}`);
  const peers = [await zipfilePeer(stack, versionId)];
  const runs: ExportRun[] = [];
  for (const format of ['coco', 'yolo', 'hf', 'imagefolder'] as const) {
    runs.push(await runExport({ apiUrl, worker, scratch, dataDir, datasetId, label: `labelled-${count}`, media: count, classes }, format, true));
  }
  peers.push(await zipfilePeer(stack, versionId));
  const peerSeconds = Math.min(...peers.map((peer) => peer.seconds));
  writeReport('export', `export-labelled-${count}`, {
    date: new Date().toISOString(),
    machine: benchMachine(),
    load_average_at_start: loadAtStart,
    load_average_at_end: os.loadavg(),
    method:
      METHOD +
      `The dataset is built in Postgres (syntheticDataset.ts): ${count} media whose files are the ${jpegs.length} eval photos ` +
      '(scripts/fetch-eval-photos.sh), media n showing photo n mod their number with a JPEG comment naming n (bytes of its own), ' +
      'stored in the object store as ingestion stores them, with ' +
      `${CLASSES.length} classes in the declared label field "label" and train/val/test (8:1:1) in the declared split field "split". ` +
      'Every archive is downloaded through its download_uri; its records, its images and its images per split and class (COCO ' +
      'instances_<split>.json by category, YOLO labels by data.yaml names, the Hugging Face label column by its ClassLabel names, ' +
      'ImageFolder folders) are checked against the seeded ones. Peer: python3 zipfile writing the same files (ZIP_STORED) ' +
      'under images/, before and after the exports; ratio: export seconds / the faster peer.',
    seeding_seconds: seeding.seconds,
    photos: jpegs.length,
    files_mb: mib(bytes),
    classes,
    peer_zipfile: peers,
    runs: runs.map((run) => ({ ...run, over_peer: run.seconds / peerSeconds })),
  } as { date: string });
}

runBench(() => withExportStack((stack) => (labelled === null ? syntheticAndImages(stack) : labelledPhotos(stack, labelled))));
