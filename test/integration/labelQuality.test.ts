import { headMediaIdsByName } from '../support/versions';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { labelledFixture } from '../support/labelledImages';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { exportWholeDataset } from '../support/exportArchives';
import { newDatasetWithTransaction, uploadFiles, waitForMap, waitForTask } from '../support/datasets';
import { eventually } from '../support/media';
import { loginCookie } from '../support/sessions';
import { expectLostTaskRepaired, sharedDatasetWithViewer } from '../support/sharedDataset';
import { startTestApi, startTestStack, type TestApi } from '../support/testStack';
import type * as Hyparquet from 'hyparquet' with { 'resolution-mode': 'import' };

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parquetReadObjects } = require('hyparquet') as typeof Hyparquet;

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const IMAGES = 300;
const PLANTED_COPIES = 10;

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
  let truth: Map<string, string>;
  let flipped: Set<string>;
  let planted: Array<[string, string]>;

  beforeAll(async () => {
    const fixture = await labelledFixture(IMAGES, PLANTED_COPIES, scratch);
    ({ truth, flipped, planted } = fixture);
    const files = fixture.files;
    stack = await startTestStack();
    const created = await newDatasetWithTransaction(stack, 'fashion');
    datasetId = created.datasetId;
    for (let i = 0; i < files.length; i += 50) await uploadFiles(stack, datasetId, created.transId, files.slice(i, i + 50)).expect(202);
    await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${created.transId}`).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 1_500_000)).status).toBe('COMPLETED');
    await waitForMap(stack, datasetId);
    const imported = await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', fixture.metadataFile).expect(202);
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
    // What the web app offers to declare: the fields the media carry, with their counts.
    const fields = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_fields`).expect(200)).body;
    expect(fields).toMatchObject({ label_field: null, split_field: null });
    expect(fields.candidates).toEqual(
      expect.arrayContaining([
        { name: 'category', media: IMAGES + PLANTED_COPIES, values: 10 },
        { name: 'split', media: IMAGES + PLANTED_COPIES, values: 2 },
      ]),
    );
    await stack.request.get(`/api/v1/dataset/${randomUUID()}/label_fields`).expect(404);
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

  it('filters Explore by the report\'s links: a class\'s flagged images, a confused pair, a split pair\'s leakage', async () => {
    const report = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/label_fields`).expect(200)).body).toMatchObject({ label_field: 'category', split_field: 'split' });
    const issues = await stack.deps.db('media_issues as i')
      .join('datasets as d', 'd.head_version_id', 'i.version_id')
      .where({ 'd.id': datasetId })
      .whereIn('i.issue_type', ['mislabel', 'leakage'])
      .select('i.media_id', 'i.issue_type', 'i.details');
    const shownBy = async (vql: object[]): Promise<string[]> => {
      const explore = await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold: 0, vql: JSON.stringify(vql) }).expect(200);
      return explore.body.clusters.flatMap((cluster: { previews: Array<{ media_id: string }> }) => cluster.previews.map((preview) => preview.media_id)).sort();
    };
    const expected = (type: string, match: (details: Record<string, string>) => boolean) =>
      issues.filter((issue) => issue.issue_type === type && match(issue.details)).map((issue) => issue.media_id).sort();

    const pair = report.confused_pairs[0];
    const pairIds = await shownBy([{ issues: { op: 'issue', value: 'mislabel', details: { label: [pair.label], suggested_label: [pair.suggested_label] } } }]);
    expect(pairIds).toHaveLength(pair.count);
    expect(pairIds).toEqual(expected('mislabel', (details) => details.label === pair.label && details.suggested_label === pair.suggested_label));
    const flaggedClass = report.classes.find((entry: { flagged: number }) => entry.flagged > 0);
    const classIds = await shownBy([{ issues: { op: 'issue', value: 'mislabel', details: { label: [flaggedClass.label] } } }]);
    expect(classIds).toHaveLength(flaggedClass.flagged);
    const { splits } = report.leakage.by_splits[0];
    const leakIds = await shownBy([{ issues: { op: 'issue', value: 'leakage', details: { split: splits, duplicate_split: splits } } }]);
    expect(leakIds.length).toBeGreaterThanOrEqual(2 * PLANTED_COPIES);
    expect(leakIds).toEqual(expected('leakage', () => true));
    expect(await shownBy([{ issues: { op: 'issue', value: 'leakage', details: { split: ['validation'] } } }])).toEqual([]);
    const refused = await stack.request
      .get(`/api/v1/explore/${datasetId}`)
      .query({ entity_type: 'IMAGES', threshold: 0, vql: JSON.stringify([{ issues: { op: 'issue', value: 'mislabel', details: { score: ['1'] } } }]) })
      .expect(422);
    expect(refused.body.detail).toContain('details keys must be among label, suggested_label, split, duplicate_split');
  });

  it('exports carry the report as label_quality.json and each media item\'s mislabel score and suggested label, in JSON and Parquet', async () => {
    const report = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    const json = await exportWholeDataset(stack, datasetId, { file_name: 'labels', export_format: 'json' });
    expect([...json.entries.keys()]).toEqual(['metadata.json', 'label_quality.json']);
    expect(JSON.parse(json.entries.get('label_quality.json')!.toString('utf8'))).toEqual(report);
    const records: Array<Record<string, unknown>> = JSON.parse(json.entries.get('metadata.json')!.toString('utf8'));
    const mislabels = new Map<string, { score: number; suggested_label: string }>(
      (
        await stack.deps.db('media_issues as i')
          .join('datasets as d', 'd.head_version_id', 'i.version_id')
          .where({ 'd.id': datasetId, 'i.issue_type': 'mislabel' })
          .select('i.media_id', 'i.details')
      ).map((row) => [row.media_id, row.details]),
    );
    expect(mislabels.size).toBe(report.n_flagged);
    for (const record of records) {
      const mislabel = mislabels.get(record.media_id as string);
      expect([record.mislabel_score, record.suggested_label]).toEqual(mislabel ? [mislabel.score, mislabel.suggested_label] : [null, null]);
    }

    const parquet = await exportWholeDataset(stack, datasetId, { file_name: 'labels', export_format: 'parquet' });
    expect(JSON.parse(parquet.entries.get('label_quality.json')!.toString('utf8'))).toEqual(report);
    const rows = await parquetReadObjects({ file: new Uint8Array(parquet.entries.get('metadata.parquet')!).buffer, columns: ['media_id', 'mislabel_score', 'suggested_label'] });
    expect(rows.map((row) => [row.media_id, row.mislabel_score, row.suggested_label])).toEqual(records.map((record) => [record.media_id, record.mislabel_score, record.suggested_label]));
  }, 300_000);

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
    // The fields to declare from: a viewer may read them, a caller without a session may not, nor may a malformed id pass.
    expect((await api.request.get(url()).set('Cookie', viewer).expect(200)).body).toEqual({
      label_field: null,
      split_field: null,
      candidates: [
        { name: 'class', media: 1, values: 1 },
        { name: 'split', media: 1, values: 1 },
      ],
    });
    await api.request.get(url()).expect(401);
    expect((await api.request.get('/api/v1/dataset/not-a-uuid/label_fields').set('Cookie', viewer).expect(422)).body.detail).toMatch(/^params\.dataset_id: /);
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
