import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { MediaSourceError, type SourceEntry } from './sourceEntry';

export type ArchiveKind = 'zip' | 'tar' | 'tar.gz';

/** Bounds that keep a hostile archive (zip bomb, millions of entries) from filling the disk. */
export interface ArchiveLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
  /**
   * Media barely compress, so an entry may expand to at most `maxRatio` times its compressed size
   * (the whole archive's size for a .tar.gz, whose entries are not compressed one by one), and the
   * archive to `maxRatio` times its own size; below `ratioFloorBytes` any ratio is accepted.
   */
  maxRatio: number;
  ratioFloorBytes: number;
}

/** The archive kind from the first bytes of a file (a gzip stream is taken for a .tar.gz). */
export function archiveKindOf(head: Buffer): ArchiveKind | undefined {
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) return 'zip';
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0506) return 'zip';
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  if (head.length >= 262 && head.toString('latin1', 257, 262) === 'ustar') return 'tar';
  return undefined;
}

export async function readArchiveKind(file: string): Promise<ArchiveKind | undefined> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return archiveKindOf(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/**
 * The name an entry keeps: its normalised relative path. Absolute paths and paths leaving the
 * archive are refused, although nothing is ever written to disk under an entry's name.
 */
function safeEntryName(raw: string): string {
  const name = path.posix.normalize(raw.replace(/\\/g, '/')).replace(/^(\.\/)+/, '');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name) || name === '..' || name.startsWith('../')) {
    throw new MediaSourceError(`unsafe path in archive: ${raw}`);
  }
  return name;
}

/** macOS resource forks ride along in many archives and are not media. */
const isResourceFork = (name: string) => name.startsWith('__MACOSX/') || path.posix.basename(name).startsWith('._');

/** What `compressedBytes` may expand to under the ratio bound. */
const ratioAllowance = (limits: ArchiveLimits, compressedBytes: number) => Math.max(limits.ratioFloorBytes, limits.maxRatio * compressedBytes);

/**
 * Charges each entry, by its declared size (yauzl fails an entry whose data exceed it; a tar
 * header's size is the data's), before a byte of it is read, so a refused entry never reaches the disk.
 */
function budget(limits: ArchiveLimits, archiveBytes: number) {
  let entries = 0;
  let bytes = 0;
  const maxTotal = Math.min(limits.maxTotalBytes, ratioAllowance(limits, archiveBytes));
  return (name: string, size: number, compressedSize = archiveBytes) => {
    if (++entries > limits.maxEntries) throw new MediaSourceError(`archive has more than ${limits.maxEntries} entries`);
    if (size > limits.maxEntryBytes) throw new MediaSourceError(`archive entry ${name} expands to more than ${limits.maxEntryBytes} bytes`);
    if (size > ratioAllowance(limits, compressedSize)) {
      throw new MediaSourceError(`archive entry ${name} expands more than ${limits.maxRatio} times its compressed size`);
    }
    bytes += size;
    if (bytes > maxTotal) {
      throw new MediaSourceError(
        maxTotal < limits.maxTotalBytes
          ? `archive expands more than ${limits.maxRatio} times its size`
          : `archive expands to more than ${limits.maxTotalBytes} bytes`,
      );
    }
  };
}

async function* zipEntries(file: string, archiveBytes: number, limits: ArchiveLimits): AsyncGenerator<SourceEntry> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  const next = () =>
    new Promise<yauzl.Entry | undefined>((resolve, reject) => {
      const settle = (fn: () => void) => {
        zip.removeAllListeners('entry').removeAllListeners('end').removeAllListeners('error');
        fn();
      };
      zip.once('entry', (entry: yauzl.Entry) => settle(() => resolve(entry)));
      zip.once('end', () => settle(() => resolve(undefined)));
      zip.once('error', (error: Error) => settle(() => reject(error)));
      zip.readEntry();
    });
  const charge = budget(limits, archiveBytes);
  try {
    for (let entry = await next(); entry; entry = await next()) {
      const current = entry;
      const isSymlink = ((current.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
      if (current.fileName.endsWith('/') || isSymlink) continue;
      const name = safeEntryName(current.fileName);
      charge(name, current.uncompressedSize, current.compressedSize);
      if (isResourceFork(name)) continue;
      yield {
        name,
        open: () =>
          new Promise<Readable>((resolve, reject) =>
            zip.openReadStream(current, (error, stream) => (error ? reject(error) : resolve(stream))),
          ),
      };
    }
  } finally {
    zip.close();
  }
}

async function* tarEntries(file: string, gzipped: boolean, archiveBytes: number, limits: ArchiveLimits): AsyncGenerator<SourceEntry> {
  const extract = tar.extract();
  const input = fs.createReadStream(file);
  const feeding = (gzipped ? pipeline(input, zlib.createGunzip(), extract) : pipeline(input, extract)).catch((error: Error) =>
    extract.destroy(error),
  );
  const charge = budget(limits, archiveBytes);
  try {
    for await (const entry of extract) {
      const { header } = entry;
      charge(header.name, header.size ?? 0);
      const name = header.type === 'file' ? safeEntryName(header.name) : undefined;
      let opened = false;
      if (name && !isResourceFork(name)) {
        // tar-stream entries are streamx streams; consumers get a Node stream.
        yield { name, open: async () => ((opened = true), Readable.from(entry)) };
      }
      // The next header comes after this entry's bytes, read or not.
      if (!opened) {
        entry.resume();
        await once(entry, 'end');
      }
    }
  } finally {
    input.destroy();
    await feeding;
  }
}

/** The files of a .zip, .tar or .tar.gz archive, one at a time, within `limits`. */
export async function* archiveEntries(file: string, label: string, limits: ArchiveLimits): AsyncGenerator<SourceEntry> {
  const kind = await readArchiveKind(file);
  if (!kind) throw new MediaSourceError(`${label} is not a .zip, .tar or .tar.gz archive`);
  const { size } = await fs.promises.stat(file);
  try {
    if (kind === 'zip') yield* zipEntries(file, size, limits);
    else yield* tarEntries(file, kind === 'tar.gz', size, limits);
  } catch (error) {
    if (error instanceof MediaSourceError) throw error;
    throw new MediaSourceError(`cannot read ${label}: ${(error as Error).message}`);
  }
}
