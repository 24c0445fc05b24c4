import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from './objectStore';

/** The folder of a store's partial writes: on the store's filesystem, so the rename into place is atomic. */
const PARTIAL_DIR = '.partial';
/** A partial write older than this has no live writer (a put takes seconds, an export's stream minutes). */
export const STALE_PARTIAL_MS = 6 * 60 * 60 * 1000;

/**
 * An ObjectStore over a folder; writes go to a temp file in `.partial/` and are renamed into place, so readers never
 * see partial files. Opening a store removes the partial writes a killed process left (older than STALE_PARTIAL_MS).
 */
export function createLocalObjectStore(root: string): ObjectStore {
  const partialDir = path.resolve(root, PARTIAL_DIR);
  fs.mkdirSync(partialDir, { recursive: true });
  void removeStalePartials(partialDir).catch(() => undefined);
  const pathOf = (key: string) => {
    const resolved = path.resolve(root, key);
    if (!resolved.startsWith(path.resolve(root) + path.sep)) throw new Error(`key escapes the store: ${key}`);
    if (resolved === partialDir || resolved.startsWith(partialDir + path.sep)) throw new Error(`key names the store's partial writes: ${key}`);
    return resolved;
  };
  const exists = (key: string) => fsp.access(pathOf(key)).then(() => true, () => false);
  const newPartial = () => path.join(partialDir, `${randomBytes(8).toString('hex')}.tmp`);
  /** Runs a write into `target`'s folder, making the folder first only when it is missing (a mkdir per write cost 0.3 ms an image). */
  async function inFolderOf<T>(target: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await fsp.mkdir(path.dirname(target), { recursive: true });
      return write();
    }
  }

  /** Writes a new partial file with `write`, then renames it to `target`; a failed write leaves nothing. */
  async function writeThenRename(target: string, write: (temp: string) => Promise<unknown>): Promise<void> {
    const temp = newPartial();
    try {
      await write(temp);
      await inFolderOf(target, () => fsp.rename(temp, target));
    } catch (error) {
      await fsp.rm(temp, { force: true });
      throw error;
    }
  }

  /** The files below `dir` (a folder that is missing has none), as keys. */
  async function* filesBelow(dir: string): AsyncGenerator<string> {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) yield* filesBelow(full);
      else yield path.relative(root, full).split(path.sep).join('/');
    }
  }

  return {
    async putFile(key, localPath) {
      const target = pathOf(key);
      if (await exists(key)) {
        await fsp.rm(localPath, { force: true });
        return;
      }
      try {
        await inFolderOf(target, () => fsp.rename(localPath, target));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        await writeThenRename(target, (temp) => fsp.copyFile(localPath, temp));
        await fsp.rm(localPath, { force: true });
      }
    },
    async put(key, data) {
      await writeThenRename(pathOf(key), (temp) => fsp.writeFile(temp, data));
    },
    async putStream(key, source) {
      let bytes = 0;
      source.on('data', (chunk: Buffer) => (bytes += chunk.length));
      await writeThenRename(pathOf(key), (temp) => pipeline(source, fs.createWriteStream(temp)));
      return bytes;
    },
    get: async (key) => fsp.readFile(pathOf(key)),
    async getStream(key): Promise<Readable> {
      await fsp.access(pathOf(key));
      return fs.createReadStream(pathOf(key));
    },
    exists,
    delete: async (key) => fsp.rm(pathOf(key), { force: true }),
    list: (folder) => filesBelow(pathOf(folder)),
    withLocalFile: async (key, fn) => fn(pathOf(key)),
  };
}

/** Removes the partial writes older than STALE_PARTIAL_MS (a killed writer's). */
async function removeStalePartials(partialDir: string): Promise<void> {
  const before = Date.now() - STALE_PARTIAL_MS;
  for (const name of await fsp.readdir(partialDir)) {
    const file = path.join(partialDir, name);
    const stat = await fsp.stat(file).catch(() => undefined);
    if (stat && stat.mtimeMs < before) await fsp.rm(file, { force: true });
  }
}
