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
  // The source may fail before the pipeline listens (while the folder is made); an unheard error would crash the process.
  let earlyError: unknown;
  const rememberError = (error: unknown) => (earlyError ??= error);
  source.on('error', rememberError);
  try {
    await fs.promises.mkdir(dir, { recursive: true });
  } finally {
    source.off('error', rememberError);
  }
  if (earlyError) {
    source.destroy();
    throw earlyError;
  }
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

/**
 * Removes files in `dir` untouched for longer than `maxAgeMs`: leftovers of a process that died
 * while staging. Files being written are fresh, so a running worker's staging is left alone.
 */
export async function removeStaleStagedFiles(dir: string, maxAgeMs: number, now = Date.now()): Promise<string[]> {
  const names = await fs.promises.readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const removed: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const stat = await fs.promises.lstat(file).catch(() => undefined);
    if (!stat?.isFile() || now - stat.mtimeMs <= maxAgeMs) continue;
    await fs.promises.rm(file, { force: true });
    removed.push(file);
  }
  return removed;
}
