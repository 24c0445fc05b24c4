import { headMediaIdsByName } from '../support/versions';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { projectRoot } from '../../lib/projectRoot';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { newDatasetWithTransaction, uploadFiles, waitForTask } from '../support/datasets';
import { eventually } from '../support/media';
import { loginCookie } from '../support/sessions';
import { expectLostTaskRepaired, sharedDatasetWithViewer } from '../support/sharedDataset';
import { startTestApi, startTestStack, type TestApi } from '../support/testStack';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const IMAGES = 300;
const PLANTED_COPIES = 10;
const labelledDir = path.join(projectRoot(), '.tools', 'labelled-images');

async function finishedTask(api: Pick<TestApi, 'request'>, taskId: string, taskType: string) {
  return eventually(
    async () => (await api.request.get('/api/v1/tasks').query({ task_type: taskType, page_size: 50 }).expect(200)).body.tasks.find((task: { task_id: string }) => task.task_id === taskId),
    (task) => ['COMPLETED', 'FAILED'].includes(task?.status),
    300_000,
  );
}

/**
 * Label quality through the real API, worker, embedding model and vector index on 300 real labelled
 * photos (Fashion-MNIST): 10 % of the labels flipped with a fixed seed are found, with the true class
 * suggested, and near-duplicate copies planted in the other split are leakage.
 */
describe('label quality', () => {
  let stack: Stack;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'label-quality-'));
  const truth = new Map<string, string>();
  const flipped = new Set<string>();
  const planted: Array<[string, string]> = [];

  beforeAll(async () => {
    execFileSync('bash', [path.join(projectRoot(), 'scripts', 'fetch-labelled-images.sh'), String(IMAGES)], { stdio: 'inherit' });
    const rows = fs.readFileSync(path.join(labelledDir, 'labels.csv'), 'utf8').trim().split('\n').slice(1, IMAGES + 1).map((line) => line.split(','));
    const classes = [...new Set(rows.map(([, label]) => label))].sort();
    let seed = 27;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const metadata: Array<{ file_name: string; category: string; split: string }> = [];
    const files: string[] = [];
    for (const [fileName, label, split] of rows) {
      truth.set(fileName, label);
      let given = label;
      if (random() < 0.1) {
        while (given === label) given = classes[Math.floor(random() * classes.length)];
        flipped.add(fileName);
      }
      metadata.push({ file_name: fileName, category: given, split });
      files.push(path.join(labelledDir, fileName));
    }
    // A slightly brighter copy of every 30th photo, in the other split.
    for (const [fileName, label, split] of rows.filter((_, i) => i % 30 === 1).slice(0, PLANTED_COPIES)) {
      const copy = `copy-${fileName}`;
      await sharp(path.join(labelledDir, fileName)).modulate({ brightness: 1.05 }).toFile(path.join(scratch, copy));
      files.push(path.join(scratch, copy));
      truth.set(copy, label);
      metadata.push({ file_name: copy, category: label, split: split === 'train' ? 'test' : 'train' });
      planted.push([fileName, copy]);
    }
    fs.writeFileSync(path.join(scratch, 'metadata.json'), JSON.stringify(metadata));

    stack = await startTestStack();
    const created = await newDatasetWithTransaction(stack, 'fashion');
    datasetId = created.datasetId;
    for (let i = 0; i < files.length; i += 50) await uploadFiles(stack, datasetId, created.transId, files.slice(i, i + 50)).expect(202);
    await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${created.transId}`).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 1_500_000)).status).toBe('COMPLETED');
    const imported = await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', path.join(scratch, 'metadata.json')).expect(202);
    expect((await finishedTask(stack, imported.body.task_id, 'CUSTOM_METADATA')).status).toBe('COMPLETED');
  }, 1_800_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const idsByName = () => headMediaIdsByName(stack.deps.db, datasetId);
  const declare = (body: object) => stack.request.put(`/api/v1/dataset/${datasetId}/label_fields`).send(body);

  it('refuses bad input with 422 {detail} and a report before any check with 404, changing nothing', async () => {
    const before = await databaseFingerprint(stack.deps.db);
    const refusals: Array<[object, string]> = [
      [{}, 'body.label_field: label_field is required'],
      [{ label_field: '  ' }, 'body.label_field: label_field must not be empty'],
      [{ label_field: 7 }, 'body.label_field: label_field must be a string'],
      [{ label_field: 'x'.repeat(101) }, 'body.label_field: label_field is at most 100 characters'],
      [{ label_field: 'category', split_field: 'category' }, 'body.split_field: split_field must differ from label_field'],
      [{ label_field: 'colour' }, 'label_field: no media of this dataset has the custom metadata field "colour"'],
      [{ label_field: 'category', split_field: 'fold' }, 'split_field: no media of this dataset has the custom metadata field "fold"'],
    ];
    for (const [body, detail] of refusals) expect((await declare(body).expect(422)).body).toEqual({ detail });
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(404)).body.detail).toContain('declare the label field first');
    await stack.request.put(`/api/v1/dataset/${randomUUID()}/label_fields`).send({ label_field: 'category' }).expect(404);
    await stack.request.get(`/api/v1/dataset/${randomUUID()}/label_quality`).expect(404);
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });

  it('finds the flipped labels with the true class suggested, and the planted copies across splits', async () => {
    const started = await declare({ label_field: 'category', split_field: 'split' }).expect(202);
    const task = await finishedTask(stack, started.body.task_id, 'LABEL_QUALITY');
    expect(task).toMatchObject({ status: 'COMPLETED', dataset_id: datasetId });
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('READY');
    const ids = await idsByName();
    const names = new Map([...ids].map(([name, id]) => [id, name]));

    const flaggedIds: string[] = await stack.deps.db('media_issues as i')
      .join('datasets as d', 'd.head_version_id', 'i.version_id')
      .where({ 'd.id': datasetId, 'i.issue_type': 'mislabel' })
      .pluck('i.media_id');
    const flagged = new Set(flaggedIds.map((id) => names.get(id)!));
    // Explore's VQL issue filter shows flagged images only.
    const explore = await stack.request
      .get(`/api/v1/explore/${datasetId}`)
      .query({ entity_type: 'IMAGES', threshold: 0, vql: JSON.stringify([{ issues: { op: 'issue', value: 'mislabel', mode: 'in' } }]) })
      .expect(200);
    const shown: string[] = explore.body.clusters.flatMap((cluster: { previews: Array<{ media_id: string }> }) => cluster.previews.map((preview) => preview.media_id));
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.filter((id) => !flaggedIds.includes(id))).toEqual([]);
    const found = [...flipped].filter((name) => flagged.has(name));
    const recall = found.length / flipped.size;
    const precision = found.length / flagged.size;
    expect(flipped.size).toBeGreaterThanOrEqual(20);
    expect(recall).toBeGreaterThanOrEqual(0.6);
    // Fashion-MNIST's own look-alike classes (shirt, t-shirt, pullover, coat) cost precision at 300 images; flips are 8 % of them.
    expect(precision).toBeGreaterThanOrEqual(0.2);

    // Media details carry the score and the suggestion; most flipped ones get their true class back.
    let suggestedRight = 0;
    let scores = 0;
    for (const name of found) {
      const facts = (await stack.request.get(`/api/v1/dataset/${datasetId}/media/${ids.get(name)}`).expect(200)).body;
      expect(facts.issues).toContain('mislabel');
      expect(facts.mislabel.label).not.toBe(truth.get(name));
      expect(facts.mislabel.suggested_label).not.toBe(facts.mislabel.label);
      scores += facts.mislabel.score;
      if (facts.mislabel.suggested_label === truth.get(name)) suggestedRight++;
    }
    expect(suggestedRight / found.length).toBeGreaterThanOrEqual(0.6);
    expect(scores / found.length).toBeGreaterThan(0.5);
    const clean = [...ids.keys()].find((name) => !flagged.has(name) && !name.startsWith('copy-'))!;
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/media/${ids.get(clean)}`).expect(200)).body.mislabel).toBeNull();

    // Every planted copy and its original are a leaking pair, naming each other.
    for (const [original, copy] of planted) {
      const facts = (await stack.request.get(`/api/v1/dataset/${datasetId}/media/${ids.get(copy)}`).expect(200)).body;
      expect(facts.issues).toContain('leakage');
      expect(facts.leakage).toMatchObject({ duplicate_of: ids.get(original) });
      expect(facts.leakage.split).not.toBe(facts.leakage.duplicate_split);
    }

    const report = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    expect(report).toMatchObject({ label_field: 'category', split_field: 'split', n_media: IMAGES + PLANTED_COPIES, n_labelled: IMAGES + PLANTED_COPIES, n_flagged: flagged.size });
    expect(report.classes).toHaveLength(10);
    expect(report.classes.reduce((sum: number, c: { count: number }) => sum + c.count, 0)).toBe(IMAGES + PLANTED_COPIES);
    expect(report.estimated_error_rate).toBeGreaterThan(0.03);
    expect(report.confused_pairs.length).toBeGreaterThan(0);
    expect(report.leakage.pairs).toBeGreaterThanOrEqual(PLANTED_COPIES);
    expect(report.leakage.by_splits).toEqual([{ splits: ['test', 'train'], pairs: report.leakage.pairs }]);
  }, 600_000);

  it('checks again after a metadata import: a corrected label is no longer flagged', async () => {
    const ids = await idsByName();
    const before = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    let corrected: string | undefined;
    for (const name of flipped) {
      const facts = (await stack.request.get(`/api/v1/dataset/${datasetId}/media/${ids.get(name)}`).expect(200)).body;
      if (facts.mislabel?.suggested_label === truth.get(name)) {
        corrected = name;
        break;
      }
    }
    expect(corrected).toBeDefined();
    fs.writeFileSync(path.join(scratch, 'fix.json'), JSON.stringify([{ file_name: corrected, category: truth.get(corrected!) }]));
    const imported = await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', path.join(scratch, 'fix.json')).expect(202);
    expect((await finishedTask(stack, imported.body.task_id, 'CUSTOM_METADATA')).status).toBe('COMPLETED');
    const after = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    expect(after.checked_at > before.checked_at).toBe(true);
    expect(after).toMatchObject({ label_field: 'category', split_field: 'split', n_labelled: before.n_labelled });
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/media/${ids.get(corrected!)}`).expect(200)).body.mislabel).toBeNull();
  }, 600_000);
});

describe('label quality while it waits for a worker', () => {
  let api: TestApi;
  let datasetId: string;

  beforeAll(async () => {
    api = await startTestApi({ DISABLE_AUTH: 'false' });
    ({ datasetId } = await sharedDatasetWithViewer(api.deps.db, { class: 'cat', split: 'train' }));
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  const url = () => `/api/v1/dataset/${datasetId}/label_fields`;
  const body = { label_field: 'class', split_field: 'split' };

  it('refuses a viewer (403) and a caller without a session (401), changing nothing; a viewer may read the report', async () => {
    const viewer = await loginCookie(api, 'viewer@example.com', 'viewer-password');
    const before = await databaseFingerprint(api.deps.db);
    expect((await api.request.put(url()).set('Cookie', viewer).send(body).expect(403)).body).toEqual({
      detail: 'This operation needs editor access to the dataset; you have viewer',
    });
    await api.request.put(url()).send(body).expect(401);
    await api.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(401);
    expect((await api.request.get(`/api/v1/dataset/${datasetId}/label_quality`).set('Cookie', viewer).expect(404)).body.detail).toContain('declare the label field first');
    expect(await databaseFingerprint(api.deps.db)).toEqual(before);
  });

  it('holds the dataset READ ONLY, so a second check is refused, and gives it back when its workflow is lost', async () => {
    const owner = await loginCookie(api, 'owner@example.com', 'owner-password');
    const { task_id: taskId } = (await api.request.put(url()).set('Cookie', owner).send(body).expect(202)).body;
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).set('Cookie', owner).expect(200)).body.status_new).toBe('READ ONLY');
    expect((await api.request.put(url()).set('Cookie', owner).send(body).expect(409)).body).toEqual({ detail: 'Dataset is not READY (status READ ONLY)' });
    const snapshot = await api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).set('Cookie', owner).send({ name: 'during' }).expect(409);
    expect(snapshot.body.detail).toContain('LABEL_QUALITY');

    await expectLostTaskRepaired(api, owner, datasetId, taskId, 'LABEL_QUALITY');
  });
});
