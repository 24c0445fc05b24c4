import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from './objectStore';

/** An ObjectStore over a folder; writes go to a temp name and are renamed, so readers never see partial files. */
export function createLocalObjectStore(root: string): ObjectStore {
  const pathOf = (key: string) => {
    const resolved = path.resolve(root, key);
    if (!resolved.startsWith(path.resolve(root) + path.sep)) throw new Error(`key escapes the store: ${key}`);
    return resolved;
  };
  const exists = (key: string) => fsp.access(pathOf(key)).then(() => true, () => false);
  const tempBeside = (target: string) => `${target}.${randomBytes(6).toString('hex')}.tmp`;
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
        const temp = tempBeside(target);
        await fsp.copyFile(localPath, temp);
        await fsp.rename(temp, target);
        await fsp.rm(localPath, { force: true });
      }
    },
    async put(key, data) {
      const target = pathOf(key);
      const temp = tempBeside(target);
      await inFolderOf(target, () => fsp.writeFile(temp, data));
      await fsp.rename(temp, target);
    },
    async putStream(key, source) {
      const target = pathOf(key);
      await fsp.mkdir(path.dirname(target), { recursive: true });
      const temp = tempBeside(target);
      let bytes = 0;
      source.on('data', (chunk: Buffer) => (bytes += chunk.length));
      try {
        await pipeline(source, fs.createWriteStream(temp));
        await fsp.rename(temp, target);
      } catch (error) {
        await fsp.rm(temp, { force: true });
        throw error;
      }
      return bytes;
    },
    get: (key) => fsp.readFile(pathOf(key)),
    async getStream(key): Promise<Readable> {
      await fsp.access(pathOf(key));
      return fs.createReadStream(pathOf(key));
    },
    exists,
    delete: (key) => fsp.rm(pathOf(key), { force: true }),
    list: (folder) => filesBelow(pathOf(folder)),
    withLocalFile: (key, fn) => fn(pathOf(key)),
  };
}
