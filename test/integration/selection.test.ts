import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { runSelection } from '../../services/selection';
import { unattended } from '../../services/taskLiveness';
import { createReadyDataset } from '../support/datasets';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { evalPhotos } from '../support/evalPhotos';
import { spawnWorker, type WorkerProcess } from '../support/faultStack';
import { eventually, photo, PHOTO_NAMES } from '../support/media';
import { loginCookie } from '../support/sessions';
import { sharedDatasetWithViewer } from '../support/sharedDataset';
import { startTestApi, type TestApi } from '../support/testStack';
import { headMediaIdsByName } from '../support/versions';

const EVAL = ['darknet-dog.jpg', 'darknet-eagle.jpg', 'darknet-giraffe.jpg', 'darknet-horses.jpg', 'opencv-fruits.jpg', 'opencv-butterfly.jpg'];

interface Pick {
  media_id: string;
  score: number;
  reason: string;
}

/** Selections through the real API, worker (a child process, killed once) and vector index, on real photos. */
describe('selections for labelling', () => {
  let api: TestApi;
  let worker: WorkerProcess;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'selection-'));
  const workerExited: string[] = [];

  beforeAll(async () => {
    // An exact copy (the same bytes) and a near-identical one (smaller) of chelsea: a selection takes one of the three.
    fs.copyFileSync(photo('chelsea'), path.join(scratch, 'chelsea_copy.jpg'));
    await sharp(photo('chelsea')).resize(240).jpeg({ quality: 90 }).toFile(path.join(scratch, 'chelsea_small.jpg'));
    // Pools in chunks of 2: a selection of the 14 runs as 7 chunks across the worker's slots.
    api = await startTestApi({ ANALYSIS_CHUNK_SIZE: '2' });
    worker = spawnWorker(api.env, path.join(scratch, 'worker.log'), (how) => workerExited.push(how));
    const files = [...PHOTO_NAMES.map(photo), ...evalPhotos(...EVAL), path.join(scratch, 'chelsea_copy.jpg'), path.join(scratch, 'chelsea_small.jpg')];
    datasetId = await createReadyDataset(api, 'selection', files);
  }, 240_000);
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
    expect(workerExited).toEqual([]);
  });

  const select = (body: object) => api.request.post(`/api/v1/dataset/${datasetId}/selections`).send(body);
  const finished = (taskId: string) =>
    eventually(
      async () => (await api.request.get(`/api/v1/tasks/${taskId}`).expect(200)).body,
      (task) => ['COMPLETED', 'FAILED'].includes(task.status),
      120_000,
      `task ${taskId} ended`,
    );
  const tagId = async (name: string): Promise<string> => (await api.request.get(`/api/v1/dataset/${datasetId}/tags`).expect(200)).body.tags.find((tag: { name: string }) => tag.name === name).id;
  const picksOf = async (name: string): Promise<Pick[]> => (await api.request.get(`/api/v1/dataset/${datasetId}/tags/${await tagId(name)}/picks`).expect(200)).body.picks;
  const selectAndWait = async (body: object) => {
    const started = await select(body).expect(202);
    expect(started.headers.location).toBe(`/api/v1/tasks/${started.body.task_id}`);
    return finished(started.body.task_id);
  };

  it.each(['typicality', 'representative', 'diversity', 'uniqueness', 'coverage'])('%s tags the number asked, each pick with its score and reason', async (strategy) => {
    const task = await selectAndWait({ strategy, n: 5, tag: `by ${strategy}`, seed: 3 });
    expect(task).toMatchObject({ task_type: 'SELECTION', status: 'COMPLETED' });
    expect(task.status_message).toMatch(/^Tagged 5 media “by .+” from a pool of 14; 2 duplicate copies left out$/);
    const picks = await picksOf(`by ${strategy}`);
    expect(picks).toHaveLength(5);
    expect(new Set(picks.map((pick) => pick.media_id)).size).toBe(5);
    for (const pick of picks) {
      expect(pick.reason.startsWith(`${strategy}: `)).toBe(true);
      expect(Number.isFinite(pick.score)).toBe(true);
    }
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('READY');
  }, 120_000);

  it('leaves out duplicate copies, mixes by weight, balances over clusters, and repeats itself for a seed', async () => {
    const ids = await headMediaIdsByName(api.deps.db, datasetId);
    const chelseas = ['chelsea.jpg', 'chelsea_copy.jpg', 'chelsea_small.jpg'].map((name) => ids.get(name));
    // Every match asked for: the pool holds all but two of the three chelseas.
    const all = await selectAndWait({ weights: { typicality: 2, diversity: 1 }, n: 16, tag: 'everything', seed: 4 });
    expect(all.status_message).toBe('Tagged 14 media “everything” from a pool of 14 (16 asked; the pool holds 14); 2 duplicate copies left out');
    const everything = await picksOf('everything');
    expect(everything.filter((pick) => chelseas.includes(pick.media_id))).toHaveLength(1);

    const mixed = await selectAndWait({ weights: { typicality: 2, diversity: 1, coverage: 0 }, share: 0.5, tag: 'mix', seed: 4, balance: true });
    expect(mixed.status).toBe('COMPLETED');
    const picks = await picksOf('mix');
    expect(picks).toHaveLength(8);
    expect(picks.filter((pick) => pick.reason.startsWith('typicality: ')).length).toBeGreaterThanOrEqual(picks.filter((pick) => pick.reason.startsWith('diversity: ')).length);
    expect(picks.every((pick) => / in “cluster \d+”\)$/.test(pick.reason))).toBe(true);

    await selectAndWait({ weights: { typicality: 2, diversity: 1, coverage: 0 }, share: 0.5, tag: 'mix again', seed: 4, balance: true });
    expect((await picksOf('mix again')).map((pick) => pick.media_id).sort()).toEqual(picks.map((pick) => pick.media_id).sort());
  }, 180_000);

  it('chooses across chunks exactly what one pass over the pool chooses, and keeps no chunk once a task ends', async () => {
    for (const tag of ['by typicality', 'by representative', 'by coverage', 'mix']) {
      const { input } = await api.deps.db('tasks').whereRaw("input->>'tag' = ?", [tag]).first('input');
      await runSelection(api.deps, unattended, { ...input, tag: `${tag} in one pass` });
      expect(await picksOf(`${tag} in one pass`)).toEqual(await picksOf(tag));
    }
    expect(await api.deps.db('selection_parts').count({ n: '*' })).toEqual([{ n: '0' }]);
  }, 120_000);

  it('refuses bad input with the reason and changes nothing', async () => {
    const before = await databaseFingerprint(api.deps.db);
    const refused = async (body: object, status: number) => (await select(body).expect(status)).body.detail as string;
    expect(await refused({ strategy: 'typicality', n: 0, tag: 't' }, 422)).toMatch(/n must be at least 1/);
    expect(await refused({ strategy: 'typicality', n: -3, tag: 't' }, 422)).toMatch(/n must be at least 1/);
    expect(await refused({ strategy: 'typicality', n: 17, tag: 't' }, 422)).toBe('n is 17, but the filter matches 16 images and frames');
    expect(await refused({ strategy: 'cleverness', n: 2, tag: 't' }, 422)).toMatch(/strategy must be one of typicality, representative, diversity, uniqueness, coverage/);
    expect(await refused({ weights: { typicality: 1, cleverness: 1 }, n: 2, tag: 't' }, 422)).toMatch(/weights may only name/);
    expect(await refused({ weights: { typicality: 0, diversity: 0 }, n: 2, tag: 't' }, 422)).toMatch(/weights must not sum to 0/);
    expect(await refused({ strategy: 'typicality', weights: { diversity: 1 }, n: 2, tag: 't' }, 422)).toMatch(/give strategy or weights/);
    expect(await refused({ strategy: 'typicality', n: 2, filter: '[{"nonsense": 1}', tag: 't' }, 422)).toMatch(/^body\.filter: /);
    expect(await refused({ strategy: 'typicality', n: 2, filter: '[{"nonsense": 1}]', tag: 't' }, 422)).toMatch(/^body\.filter: /);
    expect(await refused({ strategy: 'typicality', n: 2, filter: '[{"metadata": {"field": "nothing", "op": "one_of", "value": ["x"]}}]', tag: 't' }, 422)).toBe(
      'The filter matches no images or frames of this dataset',
    );
    expect(await refused({ strategy: 'typicality', n: 2, tag: 'by typicality' }, 409)).toBe('A tag named "by typicality" already exists in this dataset');
    expect(await databaseFingerprint(api.deps.db)).toEqual(before);
  });

  it('keeps the tag, its scores and reasons in a snapshot', async () => {
    const tag = await tagId('by diversity');
    const picks = await picksOf('by diversity');
    const snapshot = (await api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).send({ name: 'chosen' }).expect(200)).body;
    await api.request.delete(`/api/v1/dataset/${datasetId}/tags/${tag}`).expect(200);
    const { version_id: versionId } = await api.deps.db('snapshots').where({ id: snapshot.snapshot_id }).first('version_id');
    const kept = await api.deps.db('media_tags').where({ version_id: versionId, tag_id: tag }).select('media_id', 'selection_score', 'selection_reason');
    expect(kept.map((row) => [row.media_id, row.selection_reason]).sort()).toEqual(picks.map((pick) => [pick.media_id, pick.reason]).sort());
  });

  const stored = async (taskId: string) => Number((await api.deps.db('selection_parts').where({ task_id: taskId }).count({ n: '*' }))[0].n);
  /** Runs the worker in short slices until it has stored a chunk of the task's pool, and leaves it frozen (SIGSTOP) with chunks still to read. */
  const frozenWithAChunkStored = async (taskId: string) => {
    const atFreeze = await eventually(
      async () => {
        worker.signal('SIGSTOP');
        const [chunks, { status, status_message: message }] = await Promise.all([stored(taskId), api.deps.db('tasks').where({ task_id: taskId }).first('status', 'status_message')]);
        if (chunks === 0) worker.signal('SIGCONT');
        return { chunks, status, message };
      },
      (state) => state.chunks > 0,
      60_000,
      'a chunk of the pool stored',
      20,
    );
    expect(atFreeze).toMatchObject({ status: 'RUNNING', message: expect.stringMatching(/^(Reading the pool|Chunks of the pool read \([1-6]\/7\))$/) });
    expect(atFreeze.chunks).toBeLessThan(7);
  };

  it('finishes a selection whose worker was killed mid-task, with the same tag', async () => {
    const body = { strategy: 'representative', n: 6, tag: 'after a crash', seed: 9 };
    const { task_id: taskId } = (await select(body).expect(202)).body;
    await frozenWithAChunkStored(taskId);
    await worker.kill();
    worker = spawnWorker(api.env, path.join(scratch, 'worker.log'), (how) => workerExited.push(how));
    expect(await finished(taskId)).toMatchObject({ status: 'COMPLETED' });
    const picks = await picksOf('after a crash');
    expect(picks).toHaveLength(6);
    await selectAndWait({ ...body, tag: 'without a crash' });
    expect((await picksOf('without a crash')).map((pick) => [pick.media_id, pick.reason])).toEqual(picks.map((pick) => [pick.media_id, pick.reason]));
    expect(await stored(taskId)).toBe(0);
  }, 180_000);

  it('ends a selection whose workflow was lost FAILED, the dataset READY again and no chunk of its pool kept', async () => {
    const { task_id: taskId } = (await select({ strategy: 'diversity', n: 4, tag: 'lost', seed: 2 }).expect(202)).body;
    await frozenWithAChunkStored(taskId);
    // Terminated as from the Temporal CLI while chunks are being read, and the worker thawed (it may have been frozen
    // inside a chunk's write, which the repair waits for): the chunks under way store their rows before the task list
    // repairs the task, which deletes them, or after it, when they store nothing.
    await api.deps.temporal.workflow.getHandle(taskId).terminate('lost in a test');
    worker.signal('SIGCONT');
    expect(await finished(taskId)).toMatchObject({ status: 'FAILED', error_message: 'The workflow was terminated' });
    await selectAndWait({ strategy: 'diversity', n: 4, tag: 'after a lost one', seed: 2 });
    expect(await stored(taskId)).toBe(0);
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('READY');
    expect((await api.request.get(`/api/v1/dataset/${datasetId}/tags`).expect(200)).body.tags.map((tag: { name: string }) => tag.name)).not.toContain('lost');
  }, 180_000);
});

describe('selections by a viewer', () => {
  let api: TestApi;
  let datasetId: string;

  beforeAll(async () => {
    api = await startTestApi({ DISABLE_AUTH: 'false' });
    ({ datasetId } = await sharedDatasetWithViewer(api.deps.db));
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('refuses a viewer (403) and a caller without a session (401), changing nothing', async () => {
    const viewer = await loginCookie(api, 'viewer@example.com', 'viewer-password');
    const before = await databaseFingerprint(api.deps.db);
    const body = { strategy: 'typicality', n: 1, tag: 'mine' };
    expect((await api.request.post(`/api/v1/dataset/${datasetId}/selections`).set('Cookie', viewer).send(body).expect(403)).body).toEqual({
      detail: 'This operation needs editor access to the dataset; you have viewer',
    });
    await api.request.post(`/api/v1/dataset/${datasetId}/selections`).send(body).expect(401);
    expect(await databaseFingerprint(api.deps.db)).toEqual(before);
  });
});
