import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDataset } from '../../db/repositories/datasets';
import { launcherDb, launcherEnv, processesUsing, startLauncher } from '../support/launcher';

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
    expect(first.output()).toContain(`[start] API          http://localhost:${apiPort}/api/v1`);
    expect(first.output()).toMatch(/\[start\] Temporal UI  http:\/\/localhost:\d+/);
    expect((await fetch(`http://127.0.0.1:${apiPort}/api/v1/datasets`)).status).toBe(200);

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

  it('refuses a wrong setting with one line naming the variable', async () => {
    const bad = startLauncher({ ...env, API_PORT: 'eighty' });
    expect(await bad.exited).toBe(2);
    expect(bad.output().trim()).toBe('Invalid configuration: API_PORT="eighty": expected a port number');
  });
});
