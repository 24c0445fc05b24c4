import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { labelledFixture } from '../support/labelledImages';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { newDatasetWithTransaction, waitForMap, waitForTask } from '../support/datasets';
import { sharedDatasetWithViewer } from '../support/sharedDataset';
import { loginCookie } from '../support/sessions';
import { startTestApi, startTestStack, type TestApi } from '../support/testStack';
import { headVersionId } from '../support/versions';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const IMAGES = 60;
const ADDED = 12;

/**
 * Labels sent with the files as a CSV (`file,label[,split]`) or a COCO file, at creation (process_files' `labels`
 * part) and on add_media (the form's `labels` part), through the real API, worker and model: rows match files by
 * relative path or a unique base name, the label field (and a split column's split field) is declared, the classes
 * API counts them; bad label files answer 400 {detail} and change nothing.
 */
describe('labels from a CSV or a COCO file', () => {
  let stack: Stack;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'label-files-'));
  let rows: Array<{ file_name: string; category: string; split: string }>;
  let dir: string;
  /** Each image sent under `<split>/<name>`: the CSV names half by that path, half by the base name. */
  const sentAs = (row: { file_name: string; split: string }) => `${row.split}/${row.file_name}`;

  beforeAll(async () => {
    const fixture = await labelledFixture(IMAGES + ADDED, 0, scratch);
    rows = JSON.parse(fs.readFileSync(fixture.metadataFile, 'utf8'));
    dir = path.dirname(fixture.files[0]);
    stack = await startTestStack();
  }, 600_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function uploaded(name: string, files: typeof rows) {
    const created = await newDatasetWithTransaction(stack, name);
    const request = stack.request.post(`/api/v1/ingestion/${created.datasetId}/data_files/${created.transId}`);
    for (const row of files) request.attach('files', path.join(dir, row.file_name), { filepath: sentAs(row) } as { filename?: string });
    await request.expect(202);
    return created;
  }
  const csvOf = (files: typeof rows) => `file,label,split\n${files.map((row, i) => `${i % 2 ? row.file_name : sentAs(row)},"${row.category}",${row.split}`).join('\n')}\n`;
  const processFiles = (created: { datasetId: string; transId: number }, query: string) =>
    stack.request.post(`/api/v1/ingestion/${created.datasetId}/process_files/${created.transId}?${query}`);
  async function metadata(datasetId: string) {
    const media: Array<{ file_name: string; custom_metadata: Record<string, string> | null }> = await stack.deps
      .db('media')
      .where({ version_id: await headVersionId(stack.deps.db, datasetId) })
      .select('file_name', 'custom_metadata');
    return new Map(media.map((row) => [row.file_name, row.custom_metadata]));
  }
  const counts = (files: typeof rows) => {
    const byClass = new Map<string, number>();
    for (const row of files) byClass.set(row.category, (byClass.get(row.category) ?? 0) + 1);
    return byClass;
  };
  const classCounts = async (datasetId: string) => {
    const listed = (await stack.request.get(`/api/v1/dataset/${datasetId}/classes`).expect(200)).body;
    return { ...listed, classes: new Map(listed.classes.map((row: { label: string; count: number }) => [row.label, row.count])) };
  };

  it('refuses bad label files at creation with 400 {detail}, changing nothing', async () => {
    const few = rows.slice(0, 3);
    const created = await uploaded('bad labels', few);
    const before = await databaseFingerprint(stack.deps.db);
    const csv = (text: string) => processFiles(created, 'labels_from=csv').attach('labels', Buffer.from(text), 'labels.csv');
    const manyLabels = `file,label\n${Array.from({ length: 10_000 }, (_, i) => `${few[i % 3].file_name},class ${i}`).join('\n')}\n`;
    const coco = { images: [...few, { file_name: 'missing.png' }].map((row, id) => ({ id, file_name: row.file_name })), categories: [{ id: 1, name: 'x' }], annotations: [{ image_id: 0, category_id: 1 }] };
    const refusals: Array<[ReturnType<typeof csv>, string]> = [
      [csv(`file,label\n${few[0].file_name},cat\nnot-sent.png,dog\n`), 'The labels file names files that were not uploaded: not-sent.png'],
      [csv(`file,label\n${few[0].file_name},\n`), `The label of row 2 (${few[0].file_name}) is empty (""): a label is 1-100 characters of one printable line`],
      [csv(`file,label\n${few[0].file_name},"a\u0007b"\n`), `The label of row 2 (${few[0].file_name}) contains control characters or line breaks ("a\\u0007b"): a label is 1-100 characters of one printable line`],
      [csv(`file,label\n${few[0].file_name},${'x'.repeat(101)}\n`), `The label of row 2 (${few[0].file_name}) is longer than 100 characters ("${'x'.repeat(101)}"): a label is 1-100 characters of one printable line`],
      [csv(manyLabels), 'The labels make 10000 classes; a dataset has at most 1000'],
      [csv(`file,label,split\n${few[0].file_name},cat,a/b\n`), `The split of row 2 (${few[0].file_name}) ("a/b") is not a split name: use letters, digits and _ (at most 64)`],
      [processFiles(created, 'labels_from=coco').attach('labels', Buffer.from(JSON.stringify(coco)), 'instances.json'), 'The labels file names files that were not uploaded: missing.png'],
      [processFiles(created, 'labels_from=coco').attach('labels', Buffer.from('{"images": 3}'), 'instances.json'), 'COCO labels file: "images" must be an array of objects'],
      [processFiles(created, 'labels_from=csv').attach('labels', Buffer.from('x'), 'labels.txt'), 'The labels file must be a .csv or a COCO .json file (got labels.txt)'],
      [processFiles(created, 'labels_from=csv'), 'labels_from=csv or coco needs the labels file as a multipart file part named "labels"'],
    ];
    for (const [request, detail] of refusals) expect((await request.expect(400)).body).toEqual({ detail });
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });

  it('holds folder labels to the same rule: a folder over 100 characters is a 400, changing nothing', async () => {
    const created = await newDatasetWithTransaction(stack, 'long folder');
    const folder = 'x'.repeat(101);
    await stack.request
      .post(`/api/v1/ingestion/${created.datasetId}/data_files/${created.transId}`)
      .attach('files', path.join(dir, rows[0].file_name), { filepath: `${folder}/${rows[0].file_name}` } as { filename?: string })
      .expect(202);
    const before = await databaseFingerprint(stack.deps.db);
    expect((await processFiles(created, 'labels_from=folder').expect(400)).body).toEqual({
      detail: `The folder (its label) of ${folder}/${rows[0].file_name} is longer than 100 characters ("${folder}"): a label is 1-100 characters of one printable line`,
    });
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });

  let datasetId: string;

  it('labels every file from a CSV at creation, by path or base name, its split column the split field', async () => {
    const files = rows.slice(0, IMAGES);
    const created = await uploaded('fashion by csv', files);
    datasetId = created.datasetId;
    await processFiles(created, 'labels_from=csv').attach('labels', Buffer.from(csvOf(files)), 'labels.csv').expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 900_000)).status).toBe('COMPLETED');
    expect(await metadata(datasetId)).toEqual(new Map(files.map((row) => [sentAs(row), { label: row.category, split: row.split }])));
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/label_fields`).expect(200)).body).toMatchObject({ label_field: 'label', split_field: 'split' });
    expect(await classCounts(datasetId)).toEqual({ label_field: 'label', split_field: 'split', classes: counts(files), unlabelled: 0 });
  }, 900_000);

  it('labels a COCO file\'s images with their category at creation, into the field asked for', async () => {
    const files = rows.slice(0, 20);
    const created = await uploaded('fashion by coco', files);
    const names = [...new Set(files.map((row) => row.category))];
    const coco = {
      images: files.map((row, id) => ({ id, file_name: `images/${row.file_name}`, width: 28, height: 28 })),
      categories: names.map((name, id) => ({ id: id + 1, name })),
      annotations: files.map((row, id) => ({ id, image_id: id, category_id: names.indexOf(row.category) + 1, bbox: [0, 0, 28, 28] })),
    };
    await processFiles(created, 'labels_from=coco&label_field=category').attach('labels', Buffer.from(JSON.stringify(coco)), 'instances_train.json').expect(202);
    expect((await waitForTask(stack, created.datasetId, ['COMPLETED', 'FAILED'], 900_000)).status).toBe('COMPLETED');
    expect(await metadata(created.datasetId)).toEqual(new Map(files.map((row) => [sentAs(row), { category: row.category }])));
    expect(await classCounts(created.datasetId)).toEqual({ label_field: 'category', split_field: null, classes: counts(files), unlabelled: 0 });
    // Its map is laid out after READY: done before the next test counts on nothing writing.
    await waitForMap(stack, created.datasetId);
  }, 900_000);

  it('labels an add_media batch from a CSV, and refuses a bad one or one without uploads with 400, changing nothing', async () => {
    const added = rows.slice(IMAGES, IMAGES + ADDED);
    const addMedia = () => {
      const request = stack.request.post(`/api/v1/dataset/${datasetId}/add_media`);
      for (const row of added) request.attach('files', path.join(dir, row.file_name), { filepath: sentAs(row) } as { filename?: string });
      return request;
    };
    // The creation's map is laid out after READY: nothing else writes while the refusals are checked.
    await waitForMap(stack, datasetId);
    const before = await databaseFingerprint(stack.deps.db);
    const refusals: Array<[ReturnType<typeof addMedia>, string]> = [
      [addMedia().field('labels_from', 'csv').attach('labels', Buffer.from('file,label\nnot-sent.png,x\n'), 'labels.csv'), 'The labels file names files that were not uploaded: not-sent.png'],
      [addMedia().field('labels_from', 'csv'), 'labels_from=csv needs the labels file as a multipart file part named "labels"'],
      [addMedia().attach('labels', Buffer.from(csvOf(added)), 'labels.csv'), 'A labels file goes with labels_from=csv or labels_from=coco'],
      [addMedia().field('labels_from', 'folder').attach('labels', Buffer.from(csvOf(added)), 'labels.csv'), 'A labels file goes with labels_from=csv or labels_from=coco, not labels_from=folder'],
      [addMedia().field('labels_from', 'csv').field('label_field', 'category').attach('labels', Buffer.from(csvOf(added)), 'labels.csv'), `label_field category is not the label field dataset ${datasetId} checks (label): send label_field=label, or declare category with PUT label_fields first`],
    ];
    for (const [request, detail] of refusals) expect((await request.expect(400)).body).toEqual({ detail });
    const s3 = await stack.request
      .post(`/api/v1/dataset/${datasetId}/add_media`)
      .field('s3_uri', 's3://bucket/folder/')
      .field('labels_from', 'csv')
      .attach('labels', Buffer.from(csvOf(added)), 'labels.csv');
    expect([s3.status, s3.body]).toEqual([400, { detail: 'labels_from=csv goes with files[] uploads; for an archive or S3 batch, import the labels after it (POST …/custom_metadata)' }]);
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);

    await addMedia().field('labels_from', 'csv').attach('labels', Buffer.from(csvOf(added)), 'labels.csv').expect(202);
    const task = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 900_000);
    expect(task).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });
    const stored = await metadata(datasetId);
    for (const row of added) expect(stored.get(sentAs(row))).toEqual({ label: row.category, split: row.split });
    expect((await classCounts(datasetId)).classes).toEqual(counts(rows.slice(0, IMAGES + ADDED)));
  }, 900_000);
});

describe('labels files and roles', () => {
  let api: TestApi;
  let datasetId: string;

  beforeAll(async () => {
    api = await startTestApi({ DISABLE_AUTH: 'false' });
    ({ datasetId } = await sharedDatasetWithViewer(api.deps.db, { label: 'cat' }));
  });
  afterAll(() => api?.close());

  it('refuses a viewer\'s add_media with a labels file (403), changing nothing', async () => {
    const viewer = await loginCookie(api, 'viewer@example.com', 'viewer-password');
    const before = await databaseFingerprint(api.deps.db);
    const response = await api.request
      .post(`/api/v1/dataset/${datasetId}/add_media`)
      .set('Cookie', viewer)
      .field('labels_from', 'csv')
      .attach('labels', Buffer.from('file,label\na.jpg,dog\n'), 'labels.csv')
      .attach('files', Buffer.from('not an image'), 'b.jpg');
    expect(response.status).toBe(403);
    expect(typeof response.body.detail).toBe('string');
    expect(await databaseFingerprint(api.deps.db)).toEqual(before);
  });
});
