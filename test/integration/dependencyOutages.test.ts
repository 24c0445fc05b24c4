import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { createApp, type AppDeps } from '../../api/app';
import { buildApiDeps } from '../../api/server';
import { loadConfig } from '../../lib/config';
import { availableMemoryBytes, embeddedSharedBuffersMb, ensureDatabase, startEmbeddedPostgres, type EmbeddedPostgres } from '../../lib/embedded/postgres';
import { startTemporalDevServer, type EmbeddedTemporal } from '../../lib/embedded/temporal';
import { createLogger } from '../../lib/logger';
import { newDatasetWithTransaction, uploadFiles } from '../support/datasets';
import { eventually, photo } from '../support/media';
import { processTree, restartServer as restart } from '../support/faultStack';
import { isAlive } from '../support/launcher';
import { freePort, holdPort } from '../support/ports';

/**
 * The API in front of a Postgres and a Temporal of this file's own, which the tests SIGKILL: data
 * routes must answer 503 {detail} with Retry-After, never 500 and never after minutes.
 */
describe('the API while Postgres or Temporal is unreachable', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-outage-'));
  let postgres: EmbeddedPostgres;
  let temporal: EmbeddedTemporal;
  let pgPort: number;
  let temporalPort: number;
  let deps: AppDeps;
  let api: { request: ReturnType<typeof supertest> };
  const startPostgres = () => startEmbeddedPostgres({ dataDir, port: pgPort });
  const startTemporal = () => startTemporalDevServer({ dataDir, port: temporalPort, namespace: 'default' });

  beforeAll(async () => {
    [pgPort, temporalPort] = [await freePort(), await freePort()];
    [postgres, temporal] = await Promise.all([startPostgres(), startTemporal()]);
    const config = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: await ensureDatabase(postgres.url, 'outages'),
      TEMPORAL_ADDRESS: temporal.address,
      // No worker serves this queue: a started creation stays open in Temporal.
      TASK_QUEUE: 'outages',
      DATABASE_CONNECT_TIMEOUT_SECONDS: '1',
      DATABASE_QUERY_TIMEOUT_SECONDS: '2',
      LOG_LEVEL: 'silent',
      PIPELINE_PORT: '0',
    });
    deps = await buildApiDeps(config, createLogger('test-api', 'silent'));
    api = { request: supertest(createApp(deps).callback()) };
  });

  afterAll(async () => {
    await deps?.hub.close();
    await deps?.temporalConnection.close();
    await deps?.vectors.close();
    await deps?.db.destroy();
    await temporal?.stop();
    await postgres?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function expectUnavailable(response: supertest.Response, detail: RegExp): void {
    expect({ status: response.status, body: response.body }).toEqual({ status: 503, body: { detail: expect.stringMatching(detail) } });
    expect(response.headers['retry-after']).toBe('5');
  }

  const dataRoutes = (datasetId: string) => [
    () => api.request.get('/api/v1/datasets'),
    () => api.request.get(`/api/v1/dataset/${datasetId}`),
    () => api.request.get('/api/v1/tasks'),
    () => api.request.get('/api/v1/ingestion/new_dataset').query({ dataset_name: 'during the outage' }),
  ];

  it('runs its embedded Postgres with a page cache of a quarter of the memory available, within 128 MB and 4 GiB', async () => {
    const { rows } = await deps.db.raw(`SELECT setting::bigint * 8 / 1024 AS mb FROM pg_settings WHERE name = 'shared_buffers'`);
    expect(Number(rows[0].mb)).toBe(embeddedSharedBuffersMb());
    expect([embeddedSharedBuffersMb(2 * 2 ** 30), embeddedSharedBuffersMb(8 * 2 ** 30), embeddedSharedBuffersMb(64 * 2 ** 30)]).toEqual([512, 2048, 4096]);
    expect(embeddedSharedBuffersMb(256 * 2 ** 20)).toBe(128);
    // In a container, its limit counts rather than the host's memory; no limit is 0 or 2^64 - 1 (as Node reports them).
    const host = 64 * 2 ** 30;
    expect([availableMemoryBytes(host, 2 * 2 ** 30), availableMemoryBytes(host, 0), availableMemoryBytes(host, 2 ** 64), availableMemoryBytes(host, undefined)]).toEqual([2 * 2 ** 30, host, host, host]);
  });

  it('answers 503 with Retry-After while Postgres is killed or hangs, and serves again once it is back', async () => {
    const { datasetId } = await newDatasetWithTransaction(api, 'before the outage');

    // Every process of the server: a backend outlives its killed postmaster for a moment and would answer a pooled connection.
    const serverProcesses = processTree(postgres.pid!);
    for (const pid of serverProcesses) process.kill(pid, 'SIGKILL');
    await postgres.exited;
    await eventually(async () => serverProcesses.filter(isAlive), (running) => running.length === 0, 10_000, 'every Postgres process gone');
    // Refused connections: a bare socket error, which names no service.
    for (const route of dataRoutes(datasetId)) expectUnavailable(await route(), /database is unavailable|depends on is unreachable/);

    // A server that accepts and never answers: the connect timeout (1 s here) ends each wait.
    const hung = await holdPort(pgPort, 'silent');
    try {
      for (const route of dataRoutes(datasetId)) expectUnavailable(await route(), /database is unavailable/);
    } finally {
      await hung.release();
    }

    postgres = await restart(startPostgres, 'Postgres');
    const listed = await eventually(() => api.request.get('/api/v1/datasets'), (response) => response.status === 200, 30_000, 'datasets 200');
    expect(listed.body.map((dataset: { id: string }) => dataset.id)).toContain(datasetId);
    expect((await api.request.get('/api/v1/health')).status).toBe(200);
  });

  it('answers 503 within seconds while every Postgres process is frozen (SIGSTOP), on pooled connections and /health too, and serves again once thawed', async () => {
    const { datasetId } = await newDatasetWithTransaction(api, 'before the freeze');
    const processes = processTree(postgres.pid!);
    for (const pid of processes) process.kill(pid, 'SIGSTOP');
    try {
      for (const route of dataRoutes(datasetId)) expectUnavailable(await route(), /database is unavailable/);
      expect((await api.request.get('/api/v1/health')).status).toBe(503);
    } finally {
      for (const pid of processes) process.kill(pid, 'SIGCONT');
    }
    const listed = await eventually(() => api.request.get('/api/v1/datasets'), (response) => response.status === 200, 30_000, 'datasets 200');
    expect(listed.body.map((dataset: { id: string }) => dataset.id)).toContain(datasetId);
    await eventually(() => api.request.get('/api/v1/health'), (response) => response.status === 200, 30_000, 'health 200');
  }, 120_000);

  it('answers 503 with Retry-After where Temporal is needed while it is killed, lists tasks from Postgres, and leaves nothing half-done', async () => {
    const queued = await newDatasetWithTransaction(api, 'queued');
    await uploadFiles(api, queued.datasetId, queued.transId, [photo('chelsea')]).expect(202);
    await api.request.post(`/api/v1/ingestion/${queued.datasetId}/process_files/${queued.transId}`).expect(202);
    const [task] = (await api.request.get('/api/v1/tasks').query({ dataset_id: queued.datasetId }).expect(200)).body.tasks;
    const waiting = await newDatasetWithTransaction(api, 'waiting');
    await uploadFiles(api, waiting.datasetId, waiting.transId, [photo('coffee')]).expect(202);

    process.kill(temporal.pid!, 'SIGKILL');
    await temporal.exited;

    // The task list comes from Postgres; the repair that asks Temporal is skipped when it cannot answer.
    const listed = await api.request.get('/api/v1/tasks').expect(200);
    expect(listed.body.tasks.find((row: { task_id: string }) => row.task_id === task.task_id)).toMatchObject({ status: task.status });
    expectUnavailable(await api.request.post(`/api/v1/tasks/${task.task_id}/abort`), /Temporal\) is unavailable/);
    expectUnavailable(
      await api.request.post(`/api/v1/ingestion/${waiting.datasetId}/process_files/${waiting.transId}`),
      /Temporal\) is unavailable/,
    );
    // The creation that could not start gave its dataset back and recorded why.
    expect((await api.request.get(`/api/v1/dataset/${waiting.datasetId}`).expect(200)).body.status_new).toBe('UPLOADING');
    const [failed] = (await api.request.get('/api/v1/tasks').query({ dataset_id: waiting.datasetId }).expect(200)).body.tasks;
    expect(failed).toMatchObject({ status: 'FAILED', error_message: expect.stringMatching(/^Could not start the workflow/) });

    temporal = await restart(startTemporal, 'Temporal');
    // The queued creation survived in Temporal's own storage, and the refused one can now start.
    await eventually(() => api.request.get('/api/v1/health'), (response) => response.status === 200, 30_000, 'health 200');
    expect((await deps.temporal.workflow.getHandle(task.task_id).describe()).status.name).toBe('RUNNING');
    await api.request.post(`/api/v1/ingestion/${waiting.datasetId}/process_files/${waiting.transId}`).expect(202);
  });
});
