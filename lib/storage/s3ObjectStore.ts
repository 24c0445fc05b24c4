import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as LibStorage from '@aws-sdk/lib-storage';
import { s3Sdk, type S3Client } from '../sources/s3';
import type { ObjectStore } from './objectStore';

/** Parts of a multipart upload (objects up to 10,000 parts, 80 GB): two in flight, so an upload holds at most 16 MB. */
export const S3_PART_SIZE = 8 * 1024 * 1024;

/**
 * An ObjectStore in an S3 bucket under `prefix`, so API and worker processes on several machines share media
 * without a shared file system. Buffers are one PutObject; files and streams are uploaded in parts when they
 * are larger than one (no 5 GB limit, no length needed up front). S3 shows an object only once it is whole.
 */
export function createS3ObjectStore(client: S3Client, bucket: string, prefix: string): ObjectStore {
  const { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, NotFound, NoSuchKey, PutObjectCommand } = s3Sdk();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Upload } = require('@aws-sdk/lib-storage') as typeof LibStorage;
  const keyOf = (key: string) => {
    if (key.split('/').some((part) => part === '..' || part === '.' || part === '')) throw new Error(`key escapes the store: ${key}`);
    return prefix === '' ? key : `${prefix.replace(/\/+$/, '')}/${key}`;
  };
  const missing = (error: unknown) => error instanceof NoSuchKey || error instanceof NotFound;

  async function exists(key: string): Promise<boolean> {
    try {
      await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
      return true;
    } catch (error) {
      if (missing(error)) return false;
      throw error;
    }
  }

  async function getStream(key: string): Promise<Readable> {
    try {
      const { Body } = await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
      return Body as Readable;
    } catch (error) {
      if (missing(error)) throw Object.assign(new Error(`no object ${key}`), { code: 'ENOENT' });
      throw error;
    }
  }

  /** Uploads everything `source` yields (in parts when it is large); returns the bytes uploaded. */
  async function upload(key: string, source: Readable): Promise<number> {
    let bytes = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    const uploaded = new Upload({ client, params: { Bucket: bucket, Key: keyOf(key), Body: counted }, partSize: S3_PART_SIZE, queueSize: 2 }).done();
    try {
      await Promise.all([pipeline(source, counted), uploaded]);
    } catch (error) {
      // A failed upload stops reading the source (and a failed source aborts the upload, leaving no parts).
      counted.destroy();
      source.destroy();
      throw error;
    }
    return bytes;
  }

  /** A temporary folder of this machine for a file the caller needs on disk. */
  async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'objects-'));
    try {
      return await fn(dir);
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  }

  /** The keys under `folder`, a page (up to 1,000) at a time. */
  async function* list(folder: string): AsyncGenerator<string> {
    const root = prefix === '' ? '' : `${prefix.replace(/\/+$/, '')}/`;
    let token: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: root + folder, ContinuationToken: token }));
      for (const object of page.Contents ?? []) yield object.Key!.slice(root.length);
      token = page.NextContinuationToken;
    } while (token);
  }

  return {
    async putFile(key, localPath) {
      if (!(await exists(key))) await upload(key, fs.createReadStream(localPath));
      await fsp.rm(localPath, { force: true });
    },
    async put(key, data) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(key), Body: data }));
    },
    putStream: upload,
    async get(key) {
      const chunks: Buffer[] = [];
      for await (const chunk of await getStream(key)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    getStream,
    exists,
    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(key) }));
    },
    list,
    withLocalFile: (key, fn) =>
      withTempDir(async (dir) => {
        const local = path.join(dir, path.posix.basename(key));
        await pipeline(await getStream(key), fs.createWriteStream(local));
        return fn(local);
      }),
  };
}
