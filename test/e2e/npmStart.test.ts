import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { createDataset } from '../../db/repositories/datasets';
import { DECODES_PER_CORE, loadConfig } from '../../lib/config';
import { inferenceQueueOf } from '../../workflows/contracts';
import { createReadyDataset } from '../support/datasets';
import { isAlive, launcherApi, launcherDb, launcherEnv, processesUsing, reportedPid, startLauncher } from '../support/launcher';
import { eventually, photo, PHOTO_NAMES } from '../support/media';
import { holdPort } from '../support/ports';
import { activityPollers } from '../support/taskQueues';

describe('npm start on embedded defaults', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-start-'));
  let env: NodeJS.ProcessEnv;
  let apiPort: number;

  beforeAll(async () => {
    env = await launcherEnv(dataDir);
    apiPort = Number(env.API_PORT);
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('serves the API within a minute, stops cleanly on Ctrl-C and keeps its data for the next start', async () => {
    const first = startLauncher(env);
    const started = Date.now();
    await first.waitForLine(/\[start\] auth disabled/, 60_000);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(first.output()).toContain(`[start] Web app      http://localhost:${apiPort}/   <- open this\n[start] API          http://localhost:${apiPort}/api/v1`);
    expect(first.output()).toMatch(/\[start\] Temporal UI  http:\/\/localhost:\d+/);
    expect((await fetch(`http://127.0.0.1:${apiPort}/api/v1/datasets`)).status).toBe(200);
    // The web app's task rows link to the embedded Temporal UI the banner names.
    const appConfig = (await (await fetch(`http://127.0.0.1:${apiPort}/api/v1/app_config`)).json()) as { temporal_ui_url: string | null };
    expect(first.output()).toContain(`[start] Temporal UI  ${appConfig.temporal_ui_url}\n`);
    expect(appConfig.temporal_ui_url).toMatch(/^http:\/\/localhost:\d+$/);

    // Write a dataset straight into the embedded database to prove it survives a restart.
    const db = launcherDb(env);
    const admin = await db('users').first();
    const workspace = await db('workspaces').first();
    const dataset = await createDataset(db, { name: 'kept', ownerId: admin.id, workspaceId: workspace.id, status: 'READY' });
    await db.destroy();

    expect(await first.interrupt()).toBe(0);
    expect(first.output()).toContain('[start] stopped');
    expect(processesUsing(dataDir)).toEqual([]);

    const second = startLauncher(env);
    try {
      await second.waitForLine(/\[start\] auth disabled/, 60_000);
      const datasets = (await (await fetch(`http://127.0.0.1:${apiPort}/api/v1/datasets`)).json()) as Array<{ id: string }>;
      expect(datasets.map((d) => d.id)).toEqual([dataset.id]);
    } finally {
      expect(await second.interrupt()).toBe(0);
    }
  }, 180_000);

  it('runs WORKER_PROCESSES workers that share the cores and the queues, and stops them all', async () => {
    const twoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-start-two-'));
    const twoEnv = await launcherEnv(twoDir, { WORKER_PROCESSES: '2', INDEX_CHUNK_SIZE: '1' });
    const launcher = startLauncher(twoEnv);
    let connection: Connection | undefined;
    try {
      await launcher.waitForLine(/\[start\] auth disabled/, 90_000);
      const temporalConnection = await Connection.connect({ address: `127.0.0.1:${twoEnv.TEMPORAL_PORT}` });
      connection = temporalConnection;
      const pids = [reportedPid(launcher, 'worker 1'), reportedPid(launcher, 'worker 2')];
      expect(new Set(pids).size).toBe(2);
      // Each takes its share of the cores, unless INFERENCE_THREADS / DECODE_CONCURRENCY are set.
      const share = Math.max(1, Math.floor(os.availableParallelism() / 2));
      for (const pid of pids) {
        const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
        expect(environ).toEqual(expect.arrayContaining([`INFERENCE_THREADS=${share}`, `DECODE_CONCURRENCY=${DECODES_PER_CORE * share}`]));
      }
      // Both poll both queues.
      const config = loadConfig(twoEnv);
      for (const queue of [config.temporal.taskQueue, inferenceQueueOf(config.temporal.taskQueue)]) {
        await eventually(() => activityPollers(temporalConnection, config.temporal.namespace, queue), (identities) => pids.every((pid) => identities.includes(`${pid}@${os.hostname()}`)), 60_000, `both workers polling ${queue}`);
      }
      await createReadyDataset(launcherApi(twoEnv), 'two workers', PHOTO_NAMES.map(photo));
    } finally {
      await connection?.close();
      expect(await launcher.interrupt()).toBe(0);
    }
    expect(launcher.output()).toContain('[start] stopped API and workers');
    expect(processesUsing(twoDir)).toEqual([]);
    expect([reportedPid(launcher, 'worker 1'), reportedPid(launcher, 'worker 2')].some(isAlive)).toBe(false);
    fs.rmSync(twoDir, { recursive: true, force: true });
  }, 240_000);

  it('refuses a wrong setting with one line naming the variable', async () => {
    const bad = startLauncher({ ...env, API_PORT: 'eighty' });
    expect(await bad.exited).toBe(2);
    expect(bad.output().trim()).toBe('Invalid configuration: API_PORT="eighty": expected a port number');
  });

  it('says why when Temporal cannot take its port, and stops what it had started', async () => {
    const taken = await holdPort(Number(env.TEMPORAL_PORT));
    try {
      const launcher = startLauncher(env);
      expect(await launcher.exited).toBe(1);
      const output = launcher.output();
      expect(output).toMatch(/\[start\] start-up failed: Temporal dev server at 127\.0\.0\.1:\d+ is not serving: process exited; it said: .*address already in use/);
      expect(output.indexOf('[start] stopped Postgres')).toBeGreaterThan(output.indexOf('start-up failed'));
      expect(processesUsing(dataDir)).toEqual([]);
    } finally {
      await taken.release();
    }
  }, 120_000);
});
