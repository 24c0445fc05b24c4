import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createReadyDataset } from '../support/datasets';
import { isAlive, launcherApi, launcherEnv, processesUsing, reportedPid, startLauncher, type Launcher } from '../support/launcher';
import { eventually, photo } from '../support/media';

describe('npm start supervises its children', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-supervise-'));
  let launcher: Launcher | undefined;

  afterAll(async () => {
    await launcher?.interrupt();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** SIGKILLs the child the launcher calls `name` and waits until the launcher reports it restarted. */
  async function killAndAwaitRestart(running: Launcher, name: string): Promise<number> {
    const before = reportedPid(running, name);
    const mark = running.output().length;
    process.kill(before, 'SIGKILL');
    await running.waitForLine(new RegExp(`\\[start\\] ${name} exited unexpectedly \\(signal SIGKILL\\); restarting in [\\d.]+ s`), 10_000, mark);
    const [, pid] = await running.waitForLine(new RegExp(`\\[start\\] ${name} restarted \\(pid (\\d+)\\)`), 90_000, mark);
    expect(Number(pid)).not.toBe(before);
    expect(isAlive(before)).toBe(false);
    return Number(pid);
  }

  it('restarts a killed API and a killed worker, which serve again; Ctrl-C then stops everything in order', async () => {
    const env = await launcherEnv(dataDir);
    const api = launcherApi(env);
    launcher = startLauncher(env);
    await launcher.waitForLine(/\[start\] auth disabled/, 90_000);
    const health = () => fetch(`${api.url}/api/v1/health`).then((response) => response.status, () => 0);

    const apiPid = await killAndAwaitRestart(launcher, 'API');
    expect(await eventually(health, (status) => status === 200, 30_000, 'health 200 from the restarted API')).toBe(200);
    expect(isAlive(apiPid)).toBe(true);

    await killAndAwaitRestart(launcher, 'worker');
    // Only a serving worker can index a dataset: the restarted one takes the creation's workflow and activities.
    await createReadyDataset(api, 'after restarts', [photo('chelsea'), photo('coffee')]);

    expect(await launcher.interrupt()).toBe(0);
    const output = launcher.output();
    const order = ['[start] stopping (SIGINT)', '[start] stopped API and workers', '[start] stopped Temporal', '[start] stopped Postgres', '[start] stopped\n'];
    const positions = order.map((line) => output.indexOf(line));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(output.slice(positions[0])).not.toContain('exited unexpectedly');
    expect(processesUsing(dataDir)).toEqual([]);
  }, 240_000);
});
