import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { Client, Connection } from '@temporalio/client';
import type supertest from 'supertest';
import type { Db } from '../../db/connection';
import { newDatasetWithTransaction, uploadFiles, waitForTask } from '../support/datasets';
import { launcherApi, launcherDb, launcherEnv, postmasterPid, processesUsing, reportedPid, startLauncher, type Launcher } from '../support/launcher';
import { eventually, photo, PHOTO_NAMES } from '../support/media';
import { holdPort } from '../support/ports';
import { headVersionId } from '../support/versions';
import { clusteringOf } from '../../db/repositories/clusteringOf';

/**
 * Faults as an operator meets them, on the stack `npm start` runs: Postgres or the Temporal dev
 * server is SIGKILLed during a creation of 24 photos and kept from coming back for a while (the
 * test holds its port, so the launcher's restarts fail and back off). Nobody intervenes: the
 * launcher restarts it, the creation completes, and meanwhile the API answered 503 with Retry-After.
 */
describe('outages during a dataset creation on the launcher stack', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-outages-'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-outage-photos-'));
  // 24 distinct photos: 8 originals in 3 tints.
  const files: string[] = [];
  let env: NodeJS.ProcessEnv;
  let launcher: Launcher;
  let api: { request: ReturnType<typeof supertest> };
  let db: Db;
  let temporal: Client;

  beforeAll(async () => {
    for (const name of PHOTO_NAMES) {
      for (const [tint, colour] of [['red', '#ff8080'], ['green', '#80ff80'], ['blue', '#8080ff']] as const) {
        const file = path.join(scratch, `${name}_${tint}.jpg`);
        await sharp(photo(name)).tint(colour).jpeg().toFile(file);
        files.push(file);
      }
    }
    env = await launcherEnv(dataDir);
    api = launcherApi(env);
    launcher = startLauncher(env);
    await launcher.waitForLine(/\[start\] auth disabled/, 120_000);
    db = launcherDb(env);
    temporal = new Client({ connection: await Connection.connect({ address: `127.0.0.1:${env.TEMPORAL_PORT}` }) });
  }, 180_000);

  afterAll(async () => {
    await temporal?.connection.close();
    await db?.destroy();
    if (launcher) {
      expect(await launcher.interrupt()).toBe(0);
      expect(processesUsing(dataDir)).toEqual([]);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  }, 60_000);

  function expectUnavailable(response: supertest.Response): void {
    expect({ status: response.status, detail: typeof response.body.detail }).toEqual({ status: 503, detail: 'string' });
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  }

  /** A creation of the 24 photos, under way: some media are already in. Returns its dataset and task. */
  async function creationUnderWay(name: string): Promise<{ datasetId: string; taskId: string }> {
    const { datasetId, transId } = await newDatasetWithTransaction(api, name);
    await uploadFiles(api, datasetId, transId, files).expect(202);
    await api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202);
    const [task] = (await api.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200)).body.tasks;
    const versionId = await headVersionId(db, datasetId);
    await eventually(
      async () => Number((await db('media').where({ version_id: versionId }).count({ n: '*' }))[0].n),
      (n) => n >= 3,
      120_000,
      'media being ingested',
    );
    return { datasetId, taskId: task.task_id };
  }

  /** Every photo is one media row, decoded and embedded, in exactly one cluster per threshold; the dataset is READY. */
  async function expectCompleteAndConsistent(datasetId: string): Promise<void> {
    const versionId = await headVersionId(db, datasetId);
    const media = await db('media').where({ version_id: versionId });
    expect(media.map((row) => row.file_name).sort()).toEqual(files.map((file) => path.basename(file)).sort());
    expect(media.every((row) => row.kind === 'IMAGE' && row.embedded)).toBe(true);
    expect(await db('media_issues').where({ version_id: versionId, issue_type: 'broken' }).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect(await db('uploaded_files').where({ dataset_id: datasetId }).count({ n: '*' })).toEqual([{ n: String(files.length) }]);
    for (let threshold = 0; threshold <= 4; threshold++) {
      const members = await db('cluster_members').where({ clustering_id: clusteringOf(db, versionId), threshold });
      expect(new Set(members.map((member) => member.media_id)).size).toBe(files.length);
      expect(members).toHaveLength(files.length);
      const [{ total }] = await db('clusters').where({ clustering_id: clusteringOf(db, versionId), threshold }).sum({ total: 'size' });
      expect(Number(total)).toBe(files.length);
    }
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_images: files.length });
  }

  /** The highest attempt number among the pending activities of the task's workflow and of its MEDIA_CHUNKS child (0 when none is pending). */
  async function pendingAttempt(taskId: string): Promise<number> {
    const attempts = await Promise.all(
      [taskId, `${taskId}-media`].map(async (workflowId) => {
        const { raw } = await temporal.workflow.getHandle(workflowId).describe().catch(() => ({ raw: { pendingActivities: [] } }));
        return (raw.pendingActivities ?? []).map((activity) => activity.attempt ?? 0);
      }),
    );
    return Math.max(0, ...attempts.flat());
  }

  it('Postgres SIGKILLed and kept down past the old retry budget: the launcher restarts it, the creation completes with nothing lost or duplicated', async () => {
    const { datasetId, taskId } = await creationUnderWay('postgres outage');
    const mark = launcher.output().length;
    process.kill(postmasterPid(dataDir), 'SIGKILL');
    const held = await holdPort(Number(env.EMBEDDED_PG_PORT));
    try {
      await launcher.waitForLine(/\[start\] Postgres exited unexpectedly \(signal SIGKILL\); restarting in/, 10_000, mark);
      expectUnavailable(await api.request.get('/api/v1/datasets'));
      expectUnavailable(await api.request.get('/api/v1/tasks'));
      expectUnavailable(await api.request.get(`/api/v1/dataset/${datasetId}`));
      // An activity that met the outage is on its 6th attempt: the old policy (5 attempts) would have failed the creation here.
      await eventually(() => pendingAttempt(taskId), (attempt) => attempt >= 6, 90_000, 'a 6th attempt of the failing activity');
      await launcher.waitForLine(/\[start\] Postgres could not be restarted \(.*\); retrying in/, 60_000, mark);
    } finally {
      await held.release();
    }
    await launcher.waitForLine(/\[start\] Postgres restarted \(pid \d+\)/, 60_000, mark);

    expect(await waitForTask(api, datasetId, ['COMPLETED', 'FAILED'], 150_000)).toMatchObject({ status: 'COMPLETED' });
    await expectCompleteAndConsistent(datasetId);
  }, 170_000);

  it('the Temporal dev server SIGKILLed and kept down: tasks still list, starts are refused with 503, the launcher restarts it and the creation completes', async () => {
    const { datasetId, taskId } = await creationUnderWay('temporal outage');
    const waiting = await newDatasetWithTransaction(api, 'waiting for temporal');
    await uploadFiles(api, waiting.datasetId, waiting.transId, [photo('chelsea')]).expect(202);

    const mark = launcher.output().length;
    process.kill(reportedPid(launcher, 'Temporal'), 'SIGKILL');
    const held = await holdPort(Number(env.TEMPORAL_PORT));
    try {
      await launcher.waitForLine(/\[start\] Temporal exited unexpectedly \(signal SIGKILL\); restarting in/, 10_000, mark);
      // Tasks are read from Postgres; the repair that would ask Temporal is skipped.
      const listed = await api.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200);
      expect(listed.body.tasks).toEqual([expect.objectContaining({ task_id: taskId, status: 'RUNNING' })]);
      expectUnavailable(await api.request.post(`/api/v1/ingestion/${waiting.datasetId}/process_files/${waiting.transId}`));
      // The worker goes on without Temporal: the photos get ingested, though Temporal cannot hear that the activity finished.
      const versionId = await headVersionId(db, datasetId);
      await eventually(
        async () => Number((await db('media').where({ version_id: versionId }).count({ n: '*' }))[0].n),
        (n) => n === files.length,
        120_000,
        'every photo ingested during the outage',
      );
      await launcher.waitForLine(/\[start\] Temporal could not be restarted \(.*\); retrying in/, 60_000, mark);
    } finally {
      await held.release();
    }
    await launcher.waitForLine(/\[start\] Temporal restarted \(pid \d+\)/, 60_000, mark);

    expect(await waitForTask(api, datasetId, ['COMPLETED', 'FAILED'], 150_000)).toMatchObject({ status: 'COMPLETED' });
    await expectCompleteAndConsistent(datasetId);
    // The creation refused during the outage left its dataset ready to be processed now.
    await api.request.post(`/api/v1/ingestion/${waiting.datasetId}/process_files/${waiting.transId}`).expect(202);
  }, 170_000);
});
