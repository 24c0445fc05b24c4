import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { temporal } from '@temporalio/proto';
import { inferenceQueueOf } from '../../workflows/contracts';
import { newDatasetWithTransaction, uploadFiles, waitForTask } from '../support/datasets';
import { eventually, photo, PHOTO_NAMES } from '../support/media';
import { activityPollers } from '../support/taskQueues';
import { startTestApi, type TestApi } from '../support/testStack';
import { headVersionId } from '../support/versions';

const root = path.join(__dirname, '..', '..');

/** Which worker (its `pid@host` identity) started each chunk activity of the task's MEDIA_CHUNKS child, attempt by attempt. */
async function chunkStarts(api: TestApi, taskId: string): Promise<Array<{ activity: string; identity: string; attempt: number }>> {
  const events: temporal.api.history.v1.IHistoryEvent[] = (await api.deps.temporal.workflow.getHandle(`${taskId}-media`).fetchHistory()).events ?? [];
  const typeOf = new Map(events.flatMap((event) => (event.activityTaskScheduledEventAttributes ? [[String(event.eventId), event.activityTaskScheduledEventAttributes.activityType?.name ?? '']] : [])));
  return events.flatMap((event) => {
    const started = event.activityTaskStartedEventAttributes;
    if (!started) return [];
    return [{ activity: typeOf.get(String(started.scheduledEventId)) ?? '', identity: started.identity ?? '', attempt: started.attempt ?? 1 }];
  });
}

describe('two worker processes share one dataset creation', () => {
  let api: TestApi;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'shared-'));
  const files: string[] = [];
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    // Chunks of 4 files, 4 in flight: each worker runs at most 2 activities of the main queue at once, so both get chunks.
    api = await startTestApi({ INDEX_CHUNK_SIZE: '4', INDEX_CHUNK_CONCURRENCY: '4', DECODE_CONCURRENCY: '1' });
    for (const name of PHOTO_NAMES) {
      const tints = [['red', '#ff8080'], ['green', '#80ff80'], ['blue', '#8080ff'], ['grey', '#c0c0c0'], ['yellow', '#ffff80'], ['cyan', '#80ffff']] as const;
      for (const [tint, colour] of tints) {
        const file = path.join(scratch, `${name}_${tint}.jpg`);
        await sharp(photo(name)).tint(colour).jpeg().toFile(file);
        files.push(file);
      }
    }
  });
  // Each test has the queues to its own workers.
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.exitCode === null && worker.signalCode === null && new Promise((resolve) => worker.once('exit', resolve).kill('SIGKILL'))));
  });
  afterAll(async () => {
    await api.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const pollersOf = (queue: string) => activityPollers(api.deps.temporal, api.deps.config.temporal.namespace, queue);

  function startWorkerProcess(env: Record<string, string> = {}): { process: ChildProcess; identity: string; exited: Promise<unknown> } {
    // node itself runs the worker, so a SIGKILL reaches the worker (a tsx wrapper would die alone).
    const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
      cwd: root,
      env: { ...process.env, ...api.env, LOG_LEVEL: 'warn', ...env },
      stdio: 'ignore',
    });
    workers.push(child);
    return { process: child, identity: `${child.pid}@${os.hostname()}`, exited: new Promise((resolve) => child.once('exit', resolve)) };
  }

  it('splits the chunks between them, and when one is SIGKILLed the other finishes with every file indexed exactly once', async () => {
    const doomed = startWorkerProcess();
    const survivor = startWorkerProcess();
    const queues = [api.env.TASK_QUEUE!, inferenceQueueOf(api.env.TASK_QUEUE!)];
    for (const queue of queues) {
      await eventually(() => pollersOf(queue), (identities) => [doomed, survivor].every((w) => identities.includes(w.identity)), 120_000, `both workers polling ${queue}`);
    }
    const { datasetId, transId } = await newDatasetWithTransaction(api, 'shared');
    await uploadFiles(api, datasetId, transId, files).expect(202);
    const { task_id: taskId } = (await api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202)).body;

    // Both workers have started chunk work before one of them dies.
    const started = await eventually(
      async () => new Set((await chunkStarts(api, taskId).catch(() => [])).filter((start) => start.activity === 'ingestChunk').map((start) => start.identity)),
      (identities) => identities.has(doomed.identity) && identities.has(survivor.identity),
      120_000,
      'both workers decoding chunks',
    );
    expect(started.size).toBe(2);
    doomed.process.kill('SIGKILL');
    await doomed.exited;

    const task = await waitForTask(api, datasetId, ['COMPLETED', 'FAILED'], 240_000);
    expect(task.status).toBe('COMPLETED');

    const { db } = api.deps;
    const media = await db('media').where({ version_id: await headVersionId(db, datasetId) });
    expect(media.map((m) => m.file_name).sort()).toEqual(files.map((file) => path.basename(file)).sort());
    expect(media.every((m) => m.embedded)).toBe(true);
    const [{ n }] = await db('vector_points').where({ collection: `dataset_${datasetId.replace(/-/g, '')}` }).whereNotNull('vector').count({ n: '*' });
    expect(Number(n)).toBe(files.length);
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_images: files.length });

    // Every chunk was decoded and embedded; whatever the dead worker held was taken over by the survivor.
    const starts = await chunkStarts(api, taskId);
    const chunks = files.length / 4;
    const finished = (activity: string) => starts.filter((start) => start.activity === activity);
    expect(new Set(finished('ingestChunk').map((start) => start.identity))).toEqual(new Set([doomed.identity, survivor.identity]));
    expect(finished('ingestChunk').length).toBeGreaterThanOrEqual(chunks);
    expect(finished('embedChunk').length).toBeGreaterThanOrEqual(chunks);
    expect(starts.filter((start) => start.attempt > 1).every((start) => start.identity === survivor.identity)).toBe(true);
  }, 420_000);

  it('runs with the queues split over processes: one serves only workflows and I/O, another only inference (WORKER_QUEUES)', async () => {
    const io = startWorkerProcess({ WORKER_QUEUES: 'workflows' });
    const inference = startWorkerProcess({ WORKER_QUEUES: 'inference' });
    const [main, inferenceQueue] = [api.env.TASK_QUEUE!, inferenceQueueOf(api.env.TASK_QUEUE!)];
    await eventually(() => pollersOf(main), (identities) => identities.includes(io.identity), 120_000, 'the I/O worker polling');
    await eventually(() => pollersOf(inferenceQueue), (identities) => identities.includes(inference.identity), 120_000, 'the inference worker polling');
    expect(await pollersOf(main)).not.toContain(inference.identity);
    expect(await pollersOf(inferenceQueue)).not.toContain(io.identity);

    const { datasetId, transId } = await newDatasetWithTransaction(api, 'split queues');
    await uploadFiles(api, datasetId, transId, files.slice(0, 8)).expect(202);
    const { task_id: taskId } = (await api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202)).body;
    expect((await waitForTask(api, datasetId, ['COMPLETED', 'FAILED'], 180_000)).status).toBe('COMPLETED');
    const starts = await chunkStarts(api, taskId);
    expect(new Set(starts.filter((start) => start.activity === 'ingestChunk').map((start) => start.identity))).toEqual(new Set([io.identity]));
    expect(new Set(starts.filter((start) => start.activity === 'embedChunk').map((start) => start.identity))).toEqual(new Set([inference.identity]));
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_images: 8 });
  }, 300_000);
});
