/**
 * `npm run bench:snapshot [-- N]`: a READY dataset of N media (default 100,000) built straight in
 * Postgres (scripts/bench/syntheticDataset.ts) behind the real API and worker; then, through the
 * HTTP API, a snapshot is taken, restored and cloned, each timed from the request to the end of its
 * task, with the bytes the version tables gain. In the same run the bare version copy (the activity
 * alone) gives the floor each operation is compared with. Results: bench/results/snapshot/snapshot-<N>-<date>.json.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createVersionActivities } from '../../activities/versions';
import { createDb } from '../../db/connection';
import { createDataset } from '../../db/repositories/datasets';
import { versionTablesBytes } from '../../db/repositories/versions';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { benchMachine, freePort, say, startBenchStack, timed, writeReport, runBench } from './common';
import { seedSyntheticDataset } from './syntheticDataset';

const count = Number(process.argv[2] ?? 100_000);

async function call(url: string, method: string, body?: object): Promise<unknown> {
  const response = await fetch(url, { method, headers: body ? { 'Content-Type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  const text = await response.text();
  return text ? JSON.parse(text) : undefined;
}

/** Polls /tasks until the newest task of `taskType` is final; throws unless it COMPLETED. */
async function taskDone(apiUrl: string, taskType: string): Promise<{ dataset_id: string }> {
  for (;;) {
    const { tasks } = (await call(`${apiUrl}/tasks?task_type=${taskType}&page_size=5`, 'GET')) as { tasks: Array<{ status: string; dataset_id: string; error_message: string }> };
    const task = tasks[0];
    if (task?.status === 'COMPLETED') return task;
    if (task?.status === 'FAILED' || task?.status === 'ABORTED') throw new Error(`${taskType} ${task.status}: ${task.error_message}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function main(): Promise<void> {
  say(`bench:snapshot: ${count} media on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-snapshot-'));
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
  const stack = await startBenchStack(scratch, postgres.url, 'bench_snapshot');
  const db = createDb(await ensureDatabase(postgres.url, 'bench_snapshot'), 4);
  try {
    const seeded = await timed(() => seedSyntheticDataset(db, count, 1280));
    const { datasetId, versionId } = seeded.value;
    say(`  seeded ${count} media in ${seeded.seconds.toFixed(1)} s`);
    const snapshots = `${stack.apiUrl}/dataset/${datasetId}/snapshot`;
    const measure = async (name: string, fn: () => Promise<unknown>) => {
      const before = await versionTablesBytes(db);
      const { seconds } = await timed(fn);
      const bytesAdded = (await versionTablesBytes(db)) - before;
      say(`  ${name}: ${seconds.toFixed(2)} s, ${(bytesAdded / 2 ** 20).toFixed(0)} MiB added to the version tables`);
      return { seconds, bytes_added: bytesAdded };
    };

    // The floor: the bare copy activity, into a throwaway dataset.
    const admin = await db('users').first();
    const scratchDataset = await createDataset(db, { name: 'floor', ownerId: admin.id, workspaceId: (await db('workspaces').first()).id, status: 'READY' });
    const copy = await measure('bare version copy (the activity)', () =>
      new MockActivityEnvironment().run(createVersionActivities({ db }).copyDatasetVersion, {
        sourceVersionId: versionId,
        targetDatasetId: scratchDataset.id,
        versionId: randomUUID(),
      }),
    );

    let snapshotId = '';
    const create = await measure('create (POST snapshot)', async () => {
      snapshotId = ((await call(snapshots, 'POST', { name: 'bench' })) as { snapshot_id: string }).snapshot_id;
    });
    const restore = await measure('restore (request → SNAPSHOT_RESTORE completed)', async () => {
      await call(`${snapshots}/${snapshotId}/restore`, 'POST');
      await taskDone(stack.apiUrl, 'SNAPSHOT_RESTORE');
    });
    const clone = await measure('clone (request → SNAPSHOT_CLONE completed; copies twice: head and its own snapshot)', async () => {
      await call(`${snapshots}/${snapshotId}/clone`, 'POST');
      await taskDone(stack.apiUrl, 'SNAPSHOT_CLONE');
    });
    writeReport('snapshot', `snapshot-${count}`, {
      date: new Date().toISOString(),
      machine: benchMachine(),
      media: count,
      method:
        'Synthetic READY dataset in Postgres behind the real API and worker; each operation timed from its HTTP request to the end of its task; ' +
        'bytes: pg_total_relation_size of the version tables before and after (dead rows of a replaced version count until autovacuum).',
      bare_copy: copy,
      create: { ...create, ratio_to_bare_copy: create.seconds / copy.seconds },
      restore: { ...restore, ratio_to_bare_copy: restore.seconds / copy.seconds },
      clone: { ...clone, ratio_to_bare_copy: clone.seconds / copy.seconds },
    } as { date: string });
  } finally {
    await db.destroy();
    await stack.stop();
    await postgres.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
