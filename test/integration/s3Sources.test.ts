import { headVersionId } from '../support/versions';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../lib/sources/s3';
import { MediaSourceError } from '../../lib/sources/sourceEntry';
import { createReadyDataset, waitForTask } from '../support/datasets';
import { photo } from '../support/media';
import { freePort } from '../support/ports';
import { s3TestClientConfig, startS3Server, type S3Server } from '../support/s3Server';
import { startTestStack } from '../support/testStack';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const MEDIA_READER = 'arn:aws:iam::123456789012:role/media-reader';

describe('add_media from object storage (a real S3-compatible server with STS)', () => {
  let s3: S3Server;
  let client: S3Client;
  let stack: Stack;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 's3-'));

  const put = (key: string, body: Buffer | string) => client.send(new PutObjectCommand({ Bucket: 'media', Key: key, Body: body }));

  beforeAll(async () => {
    s3 = await startS3Server({ port: await freePort(), dataDir: path.join(scratch, 's3') });
    client = new S3Client(s3TestClientConfig(s3.endpoint));
    await client.send(new CreateBucketCommand({ Bucket: 'media' }));
    await put('incoming/2026/rocket.jpg', fs.readFileSync(photo('rocket')));
    await put('incoming/2026/deep/camera.jpg', fs.readFileSync(photo('camera')));
    await put('incoming/readme.txt', 'not media');
    await put('other/astronaut.jpg', fs.readFileSync(photo('astronaut')));
    await put('pool/grace_hopper.jpg', fs.readFileSync(photo('grace_hopper')));
    await put('pool/motorcycle_left.jpg', fs.readFileSync(photo('motorcycle_left')));
    await put('empty/notes.md', '# nothing here');
    // A single-tenant policy (`*`: every organization); no-such-bucket is allowed so that its absence, not the policy, answers.
    const policy = { '*': { prefixes: ['s3://media', 's3://no-such-bucket'], roles: [{ arn: MEDIA_READER, external_id: 'media-service' }] } };
    stack = await startTestStack({ S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY_ID: 'test', S3_SECRET_ACCESS_KEY: 'test', S3_SOURCE_POLICY: JSON.stringify(policy) });
  });
  afterAll(async () => {
    await stack?.close();
    client?.destroy();
    await s3?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const addFromS3 = (datasetId: string, uri: string) => stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).field('s3_uri', uri);
  const names = async (datasetId: string) =>
    (await stack.deps.db('media').where({ version_id: await headVersionId(stack.deps.db, datasetId) }).whereNull('parent_id').orderBy('file_name').pluck('file_name')) as string[];

  it('adds every media object under a folder, named relative to it, skipping other objects', async () => {
    const datasetId = await createReadyDataset(stack, 's3 folder', [photo('chelsea')]);
    await addFromS3(datasetId, 's3://media/incoming').expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED', error_message: null });
    expect(await names(datasetId)).toEqual(['2026/deep/camera.jpg', '2026/rocket.jpg', 'chelsea.jpg']);
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'PARTIAL INDEX', n_images: 3 });
  });

  it('reads .csv, .txt and .parquet manifests (relative or s3:// entries) and reports listed files that are missing', async () => {
    const datasetId = await createReadyDataset(stack, 's3 manifests', [photo('chelsea')]);
    await put('lists/batch.csv', 'uri,label\n../incoming/2026/rocket.jpg,rocket\ns3://media/other/astronaut.jpg,person\n../gone/ghost.jpg,x\n');
    await addFromS3(datasetId, 's3://media/lists/batch.csv').expect(202);
    const csvTask = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    expect(csvTask).toMatchObject({ status: 'COMPLETED' });
    expect(csvTask.status_message).toMatch(/Listed but missing: \.\.\/gone\/ghost\.jpg$/);
    // A relative entry keeps its path without the climb out of the manifest's folder (one naming rule, lib/media/mediaPath.ts).
    expect(await names(datasetId)).toEqual(['chelsea.jpg', 'incoming/2026/rocket.jpg', 'other/astronaut.jpg']);

    await put('lists/more.txt', '# one per line\ns3://media/pool/grace_hopper.jpg\n');
    await addFromS3(datasetId, 's3://media/lists/more.txt').expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).status).toBe('COMPLETED');

    const { parquetWriteBuffer } = await import('hyparquet-writer');
    await put('lists/last.parquet', Buffer.from(parquetWriteBuffer({ columnData: [{ name: 'path', data: ['../pool/motorcycle_left.jpg'] }] })));
    await addFromS3(datasetId, 's3://media/lists/last.parquet').field('auto_reindex', 'true').expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).status).toBe('COMPLETED');
    expect(await names(datasetId)).toEqual([
      'chelsea.jpg', 'incoming/2026/rocket.jpg', 'other/astronaut.jpg', 'pool/grace_hopper.jpg', 'pool/motorcycle_left.jpg',
    ]);
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_images: 5 });
  });

  it('refuses a URI that is malformed, names no bucket that exists, or holds no media (400), changing nothing', async () => {
    const datasetId = await createReadyDataset(stack, 's3 refusals', [photo('chelsea')]);
    for (const uri of ['s3://media/empty/', 's3://no-such-bucket/x/', 'https://media/incoming', 's3://media/lists/none.csv']) {
      expect((await addFromS3(datasetId, uri).expect(400)).body).toEqual({ detail: `Invalid S3 URI or no media files found at ${uri}` });
    }
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('READY');
    expect((await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200)).body.total).toBe(1);
  });

  it('reads as an assumed role through STS, and says so when the role cannot be assumed', async () => {
    const datasetId = await createReadyDataset(stack, 's3 role', [photo('chelsea')]);
    await addFromS3(datasetId, 's3://media/pool/').field('assume_role', MEDIA_READER).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).status).toBe('COMPLETED');
    expect(await names(datasetId)).toEqual(['chelsea.jpg', 'grace_hopper.jpg', 'motorcycle_left.jpg']);
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).field('assume_role', 'arn:aws:iam::1:role/x').attach('files', photo('rocket')).expect(400)).body)
      .toEqual({ detail: 'assume_role applies only to an s3_uri source' });

    const unreachable = `http://127.0.0.1:${await freePort()}`;
    const settings = { endpoint: s3.endpoint, region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test', forcePathStyle: true, stsEndpoint: unreachable };
    await expect(createS3Client(settings, { roleArn: MEDIA_READER, externalId: 'media-service', sessionName: 's' })).rejects.toThrow(MediaSourceError);
  });
});
