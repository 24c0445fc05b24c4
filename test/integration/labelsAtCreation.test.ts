import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createLabelQualityActivities } from '../../activities/labelQuality';
import { labelledFixture, type LabelledFixture } from '../support/labelledImages';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { newDatasetWithTransaction, waitForTask } from '../support/datasets';
import { headMediaIdsByName, headVersionId } from '../support/versions';
import { startTestStack } from '../support/testStack';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const IMAGES = 150;
const COPIES = 5;
const MEDIA = IMAGES + COPIES;
/** Small chunks, so the label check at creation runs as ten fan-out chunks. */
const CHUNK = 16;

/**
 * Labels at creation through the real API, worker, embedding model and vector index: real labelled
 * photos (Fashion-MNIST, 10 % of the labels flipped with a fixed seed) uploaded folder per class
 * (`<label>/<file>`, as `mds create --labels-from-folders` sends them) with process_files
 * `labels_from=folder` come out of creation with their folder as the custom-metadata field `label`,
 * declared, and a label-quality report that finds the flipped ones.
 */
describe('labels from folders at creation', () => {
  let stack: Stack;
  let fixture: LabelledFixture;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'labels-at-creation-'));
  let given: Map<string, string>;

  beforeAll(async () => {
    fixture = await labelledFixture(IMAGES, COPIES, scratch);
    const metadata: Array<{ file_name: string; category: string }> = JSON.parse(fs.readFileSync(fixture.metadataFile, 'utf8'));
    given = new Map(metadata.map((row) => [row.file_name, row.category]));
    stack = await startTestStack({ ANALYSIS_CHUNK_SIZE: String(CHUNK) });
  }, 300_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Uploads the files as `<given label>/<name>` (or by their bare name) to a new dataset's transaction. */
  async function uploaded(name: string, files: string[], withFolders: boolean) {
    const created = await newDatasetWithTransaction(stack, name);
    for (let i = 0; i < files.length; i += 50) {
      const request = stack.request.post(`/api/v1/ingestion/${created.datasetId}/data_files/${created.transId}`);
      for (const file of files.slice(i, i + 50)) {
        const base = path.basename(file);
        // form-data keeps the folder of a `filepath` (a `filename` loses it).
        request.attach('files', file, withFolders ? ({ filepath: `${given.get(base)}/${base}` } as { filename?: string }) : undefined);
      }
      const stored = await request.expect(202);
      // The stored name is the relative path sent; its folder is the label.
      const sent = files.slice(i, i + 50).map((file) => path.basename(file)).map((base) => (withFolders ? `${given.get(base)}/${base}` : base));
      expect([...stored.body.files].sort()).toEqual(sent.sort());
    }
    return created;
  }

  it('refuses a bad labels_from or label_field, or folders nobody sent, with 400 {detail}, changing nothing', async () => {
    const flat = await uploaded('no folders', fixture.files.slice(0, 3), false);
    const foldered = await uploaded('folders', fixture.files.slice(0, 3), true);
    const before = await databaseFingerprint(stack.deps.db);
    const refusals: Array<[{ datasetId: string; transId: number }, string, string]> = [
      [foldered, 'labels_from=file', 'labels_from must be "folder", "csv" or "coco"'],
      [foldered, 'labels_from=folder&labels_from=folder', 'labels_from must be "folder", "csv" or "coco"'],
      [foldered, 'label_field=category', 'label_field needs labels_from (folder, csv or coco)'],
      [foldered, 'labels_from=folder&label_field=%20', 'label_field must not be empty'],
      [foldered, `labels_from=folder&label_field=${'x'.repeat(101)}`, 'label_field is at most 100 characters'],
      [flat, 'labels_from=folder', 'labels_from=folder: no file was sent with a folder in its name (such as cats/1.jpg)'],
    ];
    for (const [{ datasetId, transId }, query, detail] of refusals) {
      const response = await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}?${query}`).expect(400);
      expect(response.body).toEqual({ detail });
    }
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });

  let datasetId: string;

  it('gives every image its folder as its label, declares it, and checks it before creation ends', async () => {
    let transId: number;
    ({ datasetId, transId } = await uploaded('fashion by folder', fixture.files, true));
    await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).query({ labels_from: 'folder' }).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 1_500_000)).status).toBe('COMPLETED');
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('READY');

    const ids = await headMediaIdsByName(stack.deps.db, datasetId);
    expect(ids.size).toBe(MEDIA);
    const versionId = await headVersionId(stack.deps.db, datasetId);
    const rows: Array<{ file_name: string; custom_metadata: Record<string, string> }> = await stack.deps
      .db('media')
      .where({ version_id: versionId })
      .select('file_name', 'custom_metadata');
    expect(rows.map((row) => [row.file_name, row.custom_metadata]).sort()).toEqual([...given].map(([name, label]) => [`${label}/${name}`, { label }]).sort());

    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/label_fields`).expect(200)).body).toMatchObject({ label_field: 'label', split_field: null });
    const report = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    expect(report).toMatchObject({ label_field: 'label', split_field: null, n_media: MEDIA, n_labelled: MEDIA });
    expect(report.classes).toHaveLength(new Set(given.values()).size);

    const names = new Map([...ids].map(([name, id]) => [id, path.basename(name)]));
    const flaggedIds: string[] = await stack.deps.db('media_issues').where({ version_id: versionId, issue_type: 'mislabel' }).pluck('media_id');
    expect(report.n_flagged).toBe(flaggedIds.length);
    const found = [...fixture.flipped].filter((name) => flaggedIds.some((id) => names.get(id) === name));
    expect(fixture.flipped.size).toBeGreaterThanOrEqual(8);
    expect(found.length / fixture.flipped.size).toBeGreaterThanOrEqual(0.5);
    // The creation snapshot's version keeps the report.
    const others: unknown[] = await stack.deps.db('dataset_versions').whereNot({ id: versionId }).where({ dataset_id: datasetId }).pluck('label_quality');
    expect(others).toEqual([report]);
  }, 1_800_000);

  /** The version's label issues and report (without the time of the check), in a stable order. */
  async function results(versionId: string) {
    const issues = await stack.deps
      .db('media_issues')
      .where({ version_id: versionId })
      .whereIn('issue_type', ['mislabel', 'leakage'])
      .orderBy(['media_id', 'issue_type'])
      .select('media_id', 'issue_type', 'confidence', 'details');
    const { checked_at: checkedAt, ...report } = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    expect(typeof checkedAt).toBe('string');
    return { issues, report };
  }

  it('checks in chunks any worker takes exactly what the one-activity check finds, with splits and leakage too', async () => {
    const versionId = await headVersionId(stack.deps.db, datasetId);
    const single = () =>
      new MockActivityEnvironment().run(createLabelQualityActivities({ db: stack.deps.db, vectors: stack.deps.vectors, chunks: { size: CHUNK, concurrency: 2 } }).recheckLabelQuality, {
        taskId: randomUUID(),
        datasetId,
      });
    // Creation's check ran as ten chunks.
    expect(await stack.deps.db('label_edges').where({ version_id: versionId }).count({ n: '*' }).first()).toEqual({ n: String(Math.ceil(MEDIA / CHUNK)) });
    const chunked = await results(versionId);
    expect(chunked.issues.length).toBeGreaterThan(0);
    await single();
    expect(await results(versionId)).toEqual(chunked);

    // Splits from a metadata import, declared with the label: leakage between the planted copies and their originals.
    // The import matches media by the names they keep: the paths they were uploaded under.
    const metadata: Array<{ file_name: string; category: string }> = JSON.parse(fs.readFileSync(fixture.metadataFile, 'utf8'));
    const byPath = path.join(scratch, 'metadata-by-path.json');
    fs.writeFileSync(byPath, JSON.stringify(metadata.map((row) => ({ ...row, file_name: `${row.category}/${row.file_name}` }))));
    const imported = await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', byPath).expect(202);
    await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 600_000);
    expect((await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200)).body.tasks.find((task: { task_id: string }) => task.task_id === imported.body.task_id).status).toBe('COMPLETED');
    const declared = await stack.request.put(`/api/v1/dataset/${datasetId}/label_fields`).send({ label_field: 'label', split_field: 'split' }).expect(202);
    await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 600_000);
    expect((await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200)).body.tasks.find((task: { task_id: string }) => task.task_id === declared.body.task_id).status).toBe('COMPLETED');
    const withSplits = await results(versionId);
    expect(withSplits.report).toMatchObject({ label_field: 'label', split_field: 'split' });
    expect(withSplits.issues.filter((issue) => issue.issue_type === 'leakage').length).toBeGreaterThanOrEqual(COPIES);
    await single();
    expect(await results(versionId)).toEqual(withSplits);
  }, 1_800_000);
});
