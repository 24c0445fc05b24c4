import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, NotFound, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ObjectStore } from './objectStore';

/**
 * An ObjectStore in an S3 bucket under `prefix`, so API and worker processes on several machines share media
 * without a shared file system. A put is one PutObject: S3 shows an object only once it is whole.
 */
export function createS3ObjectStore(client: S3Client, bucket: string, prefix: string): ObjectStore {
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

  /** Uploads a local file; returns its size. */
  async function putLocalFile(key: string, localPath: string): Promise<number> {
    const { size } = await fsp.stat(localPath);
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(key), Body: fs.createReadStream(localPath), ContentLength: size }));
    return size;
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

  return {
    async putFile(key, localPath) {
      if (!(await exists(key))) await putLocalFile(key, localPath);
      await fsp.rm(localPath, { force: true });
    },
    async put(key, data) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: keyOf(key), Body: data }));
    },
    // PutObject needs the length up front: the stream is spooled to a local file first.
    putStream: (key, source) =>
      withTempDir(async (dir) => {
        const spool = path.join(dir, 'object');
        await pipeline(source, fs.createWriteStream(spool));
        return putLocalFile(key, spool);
      }),
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
    withLocalFile: (key, fn) =>
      withTempDir(async (dir) => {
        const local = path.join(dir, path.posix.basename(key));
        await pipeline(await getStream(key), fs.createWriteStream(local));
        return fn(local);
      }),
  };
}
