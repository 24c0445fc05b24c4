import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDataset } from '../../db/repositories/datasets';
import { createDb } from '../../db/connection';
import { freePort } from '../support/ports';

const root = path.join(__dirname, '..', '..');

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts the launcher as `npm start` does, in its own process group so Ctrl-C can be simulated. */
function startLauncher(env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitForLine(started: Started, pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(started.output())) {
    if (started.child.exitCode !== null) throw new Error(`launcher exited early:\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function processesUsing(dataDir: string): string[] {
  const pids = fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  return pids.flatMap((pid) => {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmdline.includes(dataDir) ? [cmdline.replace(/\0/g, ' ')] : [];
    } catch {
      return [];
    }
  });
}

describe('npm start on embedded defaults', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-start-'));
  let env: NodeJS.ProcessEnv;
  let apiPort: number;

  beforeAll(async () => {
    apiPort = await freePort();
    const { DATABASE_URL: _db, TEMPORAL_ADDRESS: _temporal, TEST_DATABASE_URL: _test, ...inherited } = process.env;
    env = {
      ...inherited,
      DATA_DIR: dataDir,
      API_PORT: String(apiPort),
      EMBEDDED_PG_PORT: String(await freePort()),
      TEMPORAL_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      PIPELINE_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    };
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('serves the API within a minute, stops cleanly on Ctrl-C and keeps its data for the next start', async () => {
    const first = startLauncher(env);
    const started = Date.now();
    await waitForLine(first, /\[start\] auth disabled/, 60_000);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(first.output()).toContain(`[start] API          http://localhost:${apiPort}/api/v1`);
    expect(first.output()).toMatch(/\[start\] Temporal UI  http:\/\/localhost:\d+/);
    expect((await fetch(`http://127.0.0.1:${apiPort}/api/v1/datasets`)).status).toBe(200);

    // Write a dataset straight into the embedded database to prove it survives a restart.
    const password = fs.readFileSync(path.join(dataDir, 'postgres.password'), 'utf8');
    const db = createDb(`postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${env.EMBEDDED_PG_PORT}/media_dataset`);
    const admin = await db('users').first();
    const workspace = await db('workspaces').first();
    const dataset = await createDataset(db, { name: 'kept', ownerId: admin.id, workspaceId: workspace.id, status: 'READY' });
    await db.destroy();

    process.kill(-first.child.pid!, 'SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('[start] stopped');
    expect(processesUsing(dataDir)).toEqual([]);

    const second = startLauncher(env);
    try {
      await waitForLine(second, /\[start\] auth disabled/, 60_000);
      const datasets = (await (await fetch(`http://127.0.0.1:${apiPort}/api/v1/datasets`)).json()) as Array<{ id: string }>;
      expect(datasets.map((d) => d.id)).toEqual([dataset.id]);
    } finally {
      process.kill(-second.child.pid!, 'SIGINT');
      expect(await second.exited).toBe(0);
    }
  }, 180_000);

  it('refuses a wrong setting with one line naming the variable', async () => {
    const bad = startLauncher({ ...env, API_PORT: 'eighty' });
    expect(await bad.exited).toBe(2);
    expect(bad.output().trim()).toBe('Invalid configuration: API_PORT="eighty": expected a port number');
  });
});
