import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createLocalObjectStore } from '../../lib/storage/localObjectStore';
import type { ObjectStore } from '../../lib/storage/objectStore';
import { createS3ObjectStore, S3_PART_SIZE } from '../../lib/storage/s3ObjectStore';
import { createReadyDataset } from '../support/datasets';
import { eventually, photo } from '../support/media';
import { freePort } from '../support/ports';
import { s3TestClientConfig, startS3Server, type S3Server } from '../support/s3Server';
import { startTestStack } from '../support/testStack';

/** The object store in a bucket (OBJECT_STORE_URL) against a real S3-compatible server, next to the folder one. */
describe('object store', () => {
  let s3: S3Server;
  let client: S3Client;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'object-store-'));

  beforeAll(async () => {
    s3 = await startS3Server({ port: await freePort(), dataDir: path.join(scratch, 's3') });
    client = new S3Client(s3TestClientConfig(s3.endpoint));
    await client.send(new CreateBucketCommand({ Bucket: 'objects' }));
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const stores: Array<[string, () => ObjectStore]> = [
    ['a folder', () => createLocalObjectStore(path.join(scratch, 'folder'))],
    ['an S3 bucket', () => createS3ObjectStore(client, 'objects', 'contract/')],
  ];

  describe.each(stores)('in %s', (_, storeOf) => {
    it('keeps bytes, files and streams under their keys, and forgets deleted ones', async () => {
      const store = storeOf();
      await store.put('blobs/aa/bb/one', Buffer.from('one'));
      expect((await store.get('blobs/aa/bb/one')).toString()).toBe('one');
      expect(await store.exists('blobs/aa/bb/one')).toBe(true);
      expect(await store.exists('blobs/aa/bb/none')).toBe(false);
      await expect(store.get('blobs/aa/bb/none')).rejects.toThrow();

      const local = path.join(scratch, `moved-${Math.random()}`);
      fs.writeFileSync(local, 'from a file');
      await store.putFile('blobs/aa/cc/two', local);
      expect(fs.existsSync(local)).toBe(false);
      expect((await store.get('blobs/aa/cc/two')).toString()).toBe('from a file');
      // A second copy of content already stored is just removed.
      fs.writeFileSync(local, 'other bytes');
      await store.putFile('blobs/aa/cc/two', local);
      expect(fs.existsSync(local)).toBe(false);
      expect((await store.get('blobs/aa/cc/two')).toString()).toBe('from a file');

      const big = Buffer.alloc(3 * 1024 * 1024, 7);
      expect(await store.putStream('exports/x/archive.zip', Readable.from([big.subarray(0, 1000), big.subarray(1000)]))).toBe(big.length);
      const chunks: Buffer[] = [];
      for await (const chunk of await store.getStream('exports/x/archive.zip')) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(big)).toBe(true);
      expect(await store.withLocalFile('blobs/aa/bb/one', async (file) => fs.readFileSync(file, 'utf8'))).toBe('one');

      await store.delete('blobs/aa/bb/one');
      await store.delete('blobs/aa/bb/one');
      expect(await store.exists('blobs/aa/bb/one')).toBe(false);
    });

    it('refuses keys that would leave the store', async () => {
      await expect(storeOf().put('../outside', Buffer.from('x'))).rejects.toThrow(/escapes the store/);
    });
  });

  it('uploads files and streams larger than a part in parts, and leaves no object when the source fails', async () => {
    const store = createS3ObjectStore(client, 'objects', 'parts');
    const large = Buffer.alloc(S3_PART_SIZE + 1024 * 1024);
    for (let i = 0; i < large.length; i += 4096) large[i] = i % 251;
    const streamed = Readable.from((function* () {
      for (let i = 0; i < large.length; i += 1024 * 1024) yield large.subarray(i, i + 1024 * 1024);
    })());
    expect(await store.putStream('exports/y/archive.zip', streamed)).toBe(large.length);
    expect((await store.get('exports/y/archive.zip')).equals(large)).toBe(true);
    // A multipart object's ETag ends in its number of parts.
    const head = await client.send(new HeadObjectCommand({ Bucket: 'objects', Key: 'parts/exports/y/archive.zip' }));
    expect(head.ETag).toMatch(/-2"$/);
    const local = path.join(scratch, 'large-index');
    fs.writeFileSync(local, large);
    await store.putFile('vector-indexes/c/index', local);
    expect((await store.get('vector-indexes/c/index')).equals(large)).toBe(true);
    expect(fs.existsSync(local)).toBe(false);

    const failing = Readable.from((function* () {
      yield large.subarray(0, S3_PART_SIZE);
      yield large.subarray(S3_PART_SIZE, S3_PART_SIZE + 1024);
      throw new Error('the source broke');
    })());
    await expect(store.putStream('exports/z/archive.zip', failing)).rejects.toThrow(/the source broke/);
    expect(await store.exists('exports/z/archive.zip')).toBe(false);
  });

  it('holds all of a dataset when the service runs with OBJECT_STORE_URL: uploads, thumbnails, model inputs, the published index', async () => {
    const stack = await startTestStack({
      OBJECT_STORE_URL: 's3://objects/service',
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: 'test',
      S3_SECRET_ACCESS_KEY: 'test',
    });
    try {
      const datasetId = await createReadyDataset(stack, 'in a bucket', [photo('chelsea'), photo('rocket'), photo('coffee')]);
      const { clusters } = (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES' }).expect(200)).body;
      const preview = clusters[0].previews[0];
      const thumb = new URL(preview.media_thumb_uri);
      expect((await stack.request.get(thumb.pathname + thumb.search).expect(200)).headers['content-type']).toBe('image/jpeg');
      const similar = await stack.request
        .get(`/api/v1/explore/${datasetId}`)
        .query({ entity_type: 'IMAGES', anchor_media_id: preview.media_id, anchor_type: 'MEDIA' })
        .expect(200);
      expect(similar.body.clusters[0].previews[0].media_id).toBe(preview.media_id);

      const keysInBucket = async () => ((await client.send(new ListObjectsV2Command({ Bucket: 'objects', Prefix: 'service/' }))).Contents ?? []).map((object) => object.Key!);
      // The worker publishes the index once the collection's writes pause.
      const keys = await eventually(keysInBucket, (found) => found.some((key) => key.startsWith('service/vector-indexes/')), 30_000, 'a published index');
      // Three uploads and their three thumbnails.
      expect(keys.filter((key) => key.startsWith('service/blobs/')).length).toBeGreaterThanOrEqual(6);
      expect(fs.existsSync(path.join(stack.env.DATA_DIR!, 'objects'))).toBe(false);
    } finally {
      await stack.close();
    }
  });
});
