import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { startWorkers } from '../../workers/main';
import { waitForMap, waitForTask } from './datasets';
import { eventually } from './media';
import type { TestApi } from './testStack';

const root = path.join(__dirname, '..', '..');

/**
 * Runs `start` with a worker in a child process, SIGKILLs it once `started` holds (returning what `started` read
 * then), then finishes on a new in-process worker and returns the task (the dataset's newest, or its newest of `taskType`),
 * once the map it may have made due is laid out.
 */
export async function crashAndResume<T>(
  api: TestApi,
  datasetId: string,
  start: () => Promise<unknown>,
  started: () => Promise<T>,
  accept: (value: T) => boolean,
  taskType?: string,
) {
  // node itself runs the worker, so the SIGKILL below reaches the worker (a tsx wrapper would die alone).
  const worker = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: root,
    env: { ...process.env, ...api.env, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  await start();
  // Read often: some steps (a small map's layout) last well under a second.
  const atKill = await eventually(started, accept, 120_000, 'work under way', 20);
  worker.kill('SIGKILL');
  await exited;
  const interrupted = await waitForTask(api, datasetId, ['INITIALIZING', 'RUNNING'], undefined, taskType);
  expect(interrupted.progress_percentage).toBeLessThan(100);

  const { stop: stopWorkers } = await startWorkers(loadConfig(api.env), createLogger('test-worker', 'silent'));
  try {
    const task = await waitForTask(api, datasetId, ['COMPLETED', 'FAILED'], 180_000, taskType);
    // The map task a finished analysis starts runs on this worker too.
    if (task.status === 'COMPLETED') await waitForMap(api, datasetId);
    return { atKill, task };
  } finally {
    await stopWorkers();
  }
}
