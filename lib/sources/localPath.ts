import fs from 'node:fs';
import path from 'node:path';
import { isArchiveName, mediaKindOf } from '../media/mediaTypes';
import { archiveEntries, type ArchiveLimits } from './archive';
import { manifestFormatOf, parseManifest } from './manifest';
import { MediaSourceError, MissingEntryError, type SourceEntry } from './sourceEntry';

function openLocal(file: string) {
  return async () => {
    try {
      await fs.promises.access(file, fs.constants.R_OK);
    } catch {
      throw new MissingEntryError(`${file} does not exist or is not readable`);
    }
    return fs.createReadStream(file);
  };
}

async function* walk(root: string, dir: string): AsyncGenerator<SourceEntry> {
  const entries = (await fs.promises.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(root, full);
    else if (entry.isFile()) yield { name: path.relative(root, full).split(path.sep).join('/'), open: openLocal(full) };
  }
}

async function statOrRefuse(target: string): Promise<fs.Stats> {
  if (!path.isAbsolute(target)) throw new MediaSourceError(`path must be absolute: ${target}`);
  try {
    return await fs.promises.stat(target);
  } catch {
    throw new MediaSourceError(`path does not exist or is not readable: ${target}`);
  }
}

/**
 * The files under an absolute local path: every file of a folder (recursively, hidden ones
 * skipped), the files a manifest (.txt, .csv, .parquet) lists (absolute or relative to it), the
 * entries of an archive, or a single media file.
 */
export async function* localEntries(target: string, archiveLimits: ArchiveLimits): AsyncGenerator<SourceEntry> {
  const stats = await statOrRefuse(target);
  if (stats.isDirectory()) {
    yield* walk(target, target);
    return;
  }
  const format = manifestFormatOf(target);
  if (format) {
    for (const reference of await parseManifest(await fs.promises.readFile(target), format)) {
      yield { name: reference, open: openLocal(path.resolve(path.dirname(target), reference)) };
    }
  } else if (isArchiveName(target)) {
    yield* archiveEntries(target, path.basename(target), archiveLimits);
  } else if (mediaKindOf(target)) {
    yield { name: path.basename(target), open: openLocal(target) };
  } else {
    throw new MediaSourceError(`not a folder, manifest, archive or media file: ${target}`);
  }
}
