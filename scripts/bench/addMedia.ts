/**
 * `npm run bench:add-media [-- N M]`: a dataset of N images (the bench image set), then an add_media
 * batch of M images sent as files, another of M images in one .tar.gz, and a reindex of the whole
 * dataset, all through the real API, worker, Temporal and Postgres. Each is timed from the client's
 * request to its task COMPLETED. Results go to bench/results/add-media/add-media-<N>-<M>-<date>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { createLogger } from '../../lib/logger';
import { installSdkLogger } from '../../workers/main';
import { benchMachine, createDatasetOverHttp, filesForm, freePort, prepareImages, say, startBenchStack, waitForNewestTask, writeReport, runBench } from './common';

const baseCount = Number(process.argv[2] ?? 2000);
const batchCount = Number(process.argv[3] ?? 200);

async function writeTarGz(target: string, files: string[]): Promise<string> {
  const pack = tar.pack();
  for (const file of files) pack.entry({ name: `batch/${path.basename(file)}` }, fs.readFileSync(file));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  fs.writeFileSync(target, zlib.gzipSync(Buffer.concat(chunks)));
  return target;
}

/** Runs one request that starts a task and waits for the task; seconds from request to COMPLETED. */
async function timedTask(apiUrl: string, datasetId: string, request: () => Promise<Response>): Promise<number> {
  const started = Date.now();
  const response = await request();
  if (response.status !== 202) throw new Error(`refused: ${response.status} ${await response.text()}`);
  await waitForNewestTask(apiUrl, datasetId);
  return (Date.now() - started) / 1000;
}

async function main(): Promise<void> {
  say(`bench:add-media: ${baseCount} images, then 2 batches of ${batchCount}, on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const files = await prepareImages(baseCount + 2 * batchCount);
  const [base, asFiles, asArchive] = [files.slice(0, baseCount), files.slice(baseCount, baseCount + batchCount), files.slice(baseCount + batchCount)];
  installSdkLogger(createLogger('bench-sdk', 'error'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-add-media-'));
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
  const stack = await startBenchStack(scratch, postgres.url, 'bench_add_media');
  const { apiUrl } = stack;
  const row = (stage: string, seconds: number, items: number) => {
    say(`  ${stage.padEnd(34)} ${seconds.toFixed(2).padStart(8)} s  ${(items / seconds).toFixed(1).padStart(8)} images/s`);
    return { stage, seconds, images: items, images_per_second: items / seconds };
  };
  try {
    const created = await createDatasetOverHttp(apiUrl, 'bench-add-media', base);
    const stages = [row(`create (${baseCount}, process_files → READY)`, created.seconds, baseCount)];
    const addMedia = (body: FormData) => () => fetch(`${apiUrl}/dataset/${created.datasetId}/add_media`, { method: 'POST', body });

    const filesSeconds = await timedTask(apiUrl, created.datasetId, addMedia(await filesForm(asFiles)));
    stages.push(row(`add_media ${batchCount} files → PARTIAL INDEX`, filesSeconds, batchCount));
    const archive = await writeTarGz(path.join(scratch, 'batch.tar.gz'), asArchive);
    const archiveSeconds = await timedTask(apiUrl, created.datasetId, addMedia(await filesForm([archive], 'archive')));
    stages.push(row(`add_media ${batchCount} in a .tar.gz`, archiveSeconds, batchCount));
    const total = baseCount + 2 * batchCount;
    const reindexSeconds = await timedTask(apiUrl, created.datasetId, () => fetch(`${apiUrl}/dataset/${created.datasetId}/reindex`, { method: 'POST' }));
    stages.push(row(`reindex (${total}) → READY`, reindexSeconds, total));

    const report = {
      date: new Date().toISOString(),
      machine: benchMachine(),
      base_images: baseCount,
      batch_images: batchCount,
      stages,
      // How much faster a batch is taken in than the same number of images at creation speed.
      batch_vs_creation_rate: stages[1].images_per_second / stages[0].images_per_second,
    };
    say(`a batch of files runs at ${report.batch_vs_creation_rate.toFixed(2)}× the creation rate per image`);
    writeReport('add-media', `add-media-${baseCount}-${batchCount}`, report);
  } finally {
    await stack.stop();
    await postgres.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
