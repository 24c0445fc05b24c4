import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { makeZip } from '../support/archives';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { createReadyDataset, waitForTask } from '../support/datasets';
import { labelledFixture, type LabelledFixture } from '../support/labelledImages';
import { freePort } from '../support/ports';
import { s3TestClientConfig, startS3Server, type S3Server } from '../support/s3Server';
import { loginCookie } from '../support/sessions';
import { sharedDatasetWithViewer } from '../support/sharedDataset';
import { startTestApi, startTestStack, type TestApi } from '../support/testStack';
import { headVersionId } from '../support/versions';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/** Indexed without labels, then added in batches of these sizes: uploads, an archive, an S3 folder. */
const UNLABELLED = 30;
const UPLOADS = 40;
const ARCHIVED = 20;
const IN_S3 = 20;

/**
 * add_media with labels_from=folder through the real API, worker, embedding model, vector index and an
 * S3-compatible server: each new image's folder (the upload's relative path, the archive member's
 * directory, the S3 key's parent prefix) becomes its label, the first such batch declares the label
 * field, and every such batch checks the labels again before it ends.
 */
describe('labels from folders on add_media', () => {
  let stack: Stack;
  let s3: S3Server;
  let client: S3Client;
  let fixture: LabelledFixture;
  let given: Map<string, string>;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'labels-on-add-media-'));
  const batch = (from: number, count: number) => fixture.files.slice(from, from + count);
  const labelOf = (file: string) => given.get(path.basename(file))!;

  beforeAll(async () => {
    fixture = await labelledFixture(UNLABELLED + UPLOADS + ARCHIVED + IN_S3, 0, scratch);
    const metadata: Array<{ file_name: string; category: string }> = JSON.parse(fs.readFileSync(fixture.metadataFile, 'utf8'));
    given = new Map(metadata.map((row) => [row.file_name, row.category]));
    s3 = await startS3Server({ port: await freePort(), dataDir: path.join(scratch, 's3') });
    client = new S3Client(s3TestClientConfig(s3.endpoint));
    await client.send(new CreateBucketCommand({ Bucket: 'media' }));
    for (const file of batch(UNLABELLED + UPLOADS + ARCHIVED, IN_S3)) {
      await client.send(new PutObjectCommand({ Bucket: 'media', Key: `fashion/${labelOf(file)}/${path.basename(file)}`, Body: fs.readFileSync(file) }));
    }
    const policy = { '*': { prefixes: ['s3://media'], roles: [] } };
    stack = await startTestStack({ S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY_ID: 'test', S3_SECRET_ACCESS_KEY: 'test', S3_SOURCE_POLICY: JSON.stringify(policy) });
    datasetId = await createReadyDataset(stack, 'fashion, labels later', batch(0, UNLABELLED));
  }, 600_000);
  afterAll(async () => {
    await stack?.close();
    client?.destroy();
    await s3?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const addMedia = () => stack.request.post(`/api/v1/dataset/${datasetId}/add_media`);
  /** Files attached as `<given label>/<name>` (form-data keeps the folder of a `filepath`), or by their bare name. */
  function withFiles(request: ReturnType<typeof addMedia>, files: string[], withFolders = true) {
    for (const file of files) request.attach('files', file, withFolders ? ({ filepath: `${labelOf(file)}/${path.basename(file)}` } as { filename?: string }) : undefined);
    return request;
  }
  async function completed(request: ReturnType<typeof addMedia>) {
    await request.expect(202);
    const task = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 900_000);
    expect(task).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED', error_message: null });
  }
  /** Every head image's custom metadata, by its base name. */
  async function metadataByName() {
    const rows: Array<{ file_name: string; custom_metadata: Record<string, string> | null }> = await stack.deps
      .db('media')
      .where({ version_id: await headVersionId(stack.deps.db, datasetId) })
      .select('file_name', 'custom_metadata');
    return new Map(rows.map((row) => [path.basename(row.file_name), row.custom_metadata]));
  }
  const report = async () => (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;

  it('refuses a bad labels_from or label_field, or uploads sent without folders, with 400 {detail}, changing nothing', async () => {
    const files = batch(UNLABELLED, 2);
    const before = await databaseFingerprint(stack.deps.db);
    const refusals: Array<[ReturnType<typeof addMedia>, string]> = [
      [withFiles(addMedia(), files).field('labels_from', 'file'), 'labels_from must be "folder", "csv" or "coco"'],
      [withFiles(addMedia(), files).field('label_field', 'category'), 'label_field needs labels_from (folder, csv or coco)'],
      [withFiles(addMedia(), files).field('labels_from', 'folder').field('label_field', ' '), 'label_field must not be empty'],
      [withFiles(addMedia(), files).field('labels_from', 'folder').field('label_field', 'x'.repeat(101)), 'label_field is at most 100 characters'],
      [withFiles(addMedia(), files, false).field('labels_from', 'folder'), 'labels_from=folder: no file was sent with a folder in its name (such as cats/1.jpg)'],
    ];
    for (const [request, detail] of refusals) expect((await request.expect(400)).body).toEqual({ detail });
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });

  it('labels uploads by their folders, declares the field and checks it as part of the batch', async () => {
    const files = batch(UNLABELLED, UPLOADS);
    await completed(withFiles(addMedia(), files).field('labels_from', 'folder').field('label_field', 'category'));
    const metadata = await metadataByName();
    for (const file of batch(0, UNLABELLED)) expect(metadata.get(path.basename(file))).toBeNull();
    for (const file of files) expect(metadata.get(path.basename(file))).toEqual({ category: labelOf(file) });
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/label_fields`).expect(200)).body).toMatchObject({ label_field: 'category', split_field: null });
    const checked = await report();
    expect(checked).toMatchObject({ label_field: 'category', n_labelled: UPLOADS });
    expect(checked.classes.map((row: { label: string }) => row.label).sort()).toEqual([...new Set(files.map(labelOf))].sort());
  }, 1_200_000);

  it('refuses another label field than the declared one (400), changing nothing', async () => {
    const before = await databaseFingerprint(stack.deps.db);
    const refused = await withFiles(addMedia(), batch(UNLABELLED + UPLOADS, 2)).field('labels_from', 'folder').field('label_field', 'label').expect(400);
    expect(refused.body).toEqual({
      detail: `label_field label is not the label field dataset ${datasetId} checks (category): send label_field=category, or declare label with PUT label_fields first`,
    });
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });

  it("labels an archive's members by their directories and S3 objects by their parent prefixes, in the declared field, checked again each time", async () => {
    const archived = batch(UNLABELLED + UPLOADS, ARCHIVED);
    // Members at the archive's top have no folder, so no label.
    const entries = Object.fromEntries(archived.map((file, i) => [i === 0 ? path.basename(file) : `fashion/${labelOf(file)}/${path.basename(file)}`, file]));
    const zip = makeZip(path.join(scratch, 'batch.zip'), entries);
    await completed(addMedia().attach('archive', zip).field('labels_from', 'folder'));
    let metadata = await metadataByName();
    expect(metadata.get(path.basename(archived[0]))).toBeNull();
    for (const file of archived.slice(1)) expect(metadata.get(path.basename(file))).toEqual({ category: labelOf(file) });
    expect(await report()).toMatchObject({ label_field: 'category', n_labelled: UPLOADS + ARCHIVED - 1 });

    const stored = batch(UNLABELLED + UPLOADS + ARCHIVED, IN_S3);
    await completed(addMedia().field('s3_uri', 's3://media/fashion').field('labels_from', 'folder').field('label_field', 'category'));
    metadata = await metadataByName();
    for (const file of stored) expect(metadata.get(path.basename(file))).toEqual({ category: labelOf(file) });
    const checked = await report();
    expect(checked).toMatchObject({ label_field: 'category', n_labelled: UPLOADS + ARCHIVED - 1 + IN_S3 });
    const flagged = await stack.deps.db('media_issues').where({ version_id: await headVersionId(stack.deps.db, datasetId), issue_type: 'mislabel' }).count({ n: '*' }).first();
    expect(checked.n_flagged).toBe(Number(flagged?.n));
  }, 1_200_000);
});

describe('labels from folders on add_media, as a viewer', () => {
  let api: TestApi;
  let datasetId: string;

  beforeAll(async () => {
    api = await startTestApi({ DISABLE_AUTH: 'false' });
    ({ datasetId } = await sharedDatasetWithViewer(api.deps.db, { label: 'cat' }));
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('refuses a viewer (403 {detail}), changing nothing', async () => {
    const viewer = await loginCookie(api, 'viewer@example.com', 'viewer-password');
    const before = await databaseFingerprint(api.deps.db);
    const refused = await api.request
      .post(`/api/v1/dataset/${datasetId}/add_media`)
      .set('Cookie', viewer)
      .attach('files', Buffer.from('not read'), { filepath: 'cats/1.jpg' } as { filename?: string })
      .field('labels_from', 'folder')
      .expect(403);
    expect(refused.body).toEqual({ detail: 'This operation needs editor access to the dataset; you have viewer' });
    expect(await databaseFingerprint(api.deps.db)).toEqual(before);
  });
});
