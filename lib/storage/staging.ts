import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface StagedFile {
  path: string;
  sha256: string;
  size: number;
}

export class StagingLimitError extends Error {}

/**
 * Streams `source` to a temp file in `dir` while hashing it, so uploads never sit whole in memory.
 * More than `maxBytes` (counted, not declared) fails with StagingLimitError and removes the file.
 */
export async function stageStream(source: Readable, dir: string, options: { maxBytes?: number } = {}): Promise<StagedFile> {
  await fs.promises.mkdir(dir, { recursive: true });
  const target = path.join(dir, `${randomBytes(12).toString('hex')}.upload`);
  const hash = createHash('sha256');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      if (options.maxBytes !== undefined && size > options.maxBytes) {
        callback(new StagingLimitError(`more than ${options.maxBytes} bytes`));
        return;
      }
      callback(null, chunk);
    },
  });
  try {
    await pipeline(source, measure, fs.createWriteStream(target));
  } catch (error) {
    await fs.promises.rm(target, { force: true });
    throw error;
  }
  return { path: target, sha256: hash.digest('hex'), size };
}

/** Where uploads and fetched media wait: inside DATA_DIR, so moving them into the local store is a rename. */
export function uploadStagingDir(config: { dataDir: string }): string {
  return path.join(config.dataDir, 'tmp', 'uploads');
}
