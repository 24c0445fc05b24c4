import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { Db } from '../db/connection';
import {
  batchSources,
  countExportMedia,
  exportClasses,
  exportPage,
  ownedFileNames,
  readConsistently,
  type ExportScope,
} from '../db/repositories/exports';
import { currentLabelQualityReport } from '../db/repositories/labelQuality';
import { taskStartTime, updateTaskProgress } from '../db/repositories/tasks';
import { archiveNamesOf, type TakenNames } from '../lib/export/archiveNames';
import { toExportRecord } from '../lib/export/exportRecord';
import { exportFormatOf } from '../lib/export/formats';
import { UnexportableError, type MetadataWriter } from '../lib/export/writer';
import { discard } from '../lib/export/streams';
import { createZipWriter, type ZipWriter } from '../lib/export/zipWriter';
import { blobKey, exportArchiveKey, type ObjectStore } from '../lib/storage/objectStore';
import type { ExportInput } from '../workflows/contracts';
import type { Liveness } from './taskLiveness';

/** The version's label-quality report (GET …/label_quality), in every archive of a version that has one. */
const LABEL_QUALITY_ENTRY = 'label_quality.json';
/** Media read, named, written and (with images) packed per round trip; bounds what is held in memory. */
const PAGE_SIZE = 1000;
/** Progress reaches the task at most this often. */
const PROGRESS_INTERVAL_MS = 1000;

export interface PackagingDeps {
  db: Db;
  store: ObjectStore;
  stagingDir: string;
}

/** A failure no retry can help (the format cannot hold the version as asked) fails the export with its message. */
function asFailure(error: unknown): unknown {
  return error instanceof UnexportableError ? ApplicationFailure.create({ type: 'Unexportable', message: error.message, nonRetryable: true }) : error;
}

/** The stored bytes of a file; `what` names it when they are missing. */
async function openBlob(store: ObjectStore, sha256: string, what: string) {
  try {
    return await store.getStream(blobKey(sha256));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw ApplicationFailure.create({
      type: 'ExportFileMissing',
      message: `The file of ${what} is missing from the object store`,
      nonRetryable: true,
    });
  }
}

async function packInto(deps: PackagingDeps, live: Liveness, zip: ZipWriter, input: ExportInput, scratchDir: string): Promise<number> {
  const { db, store } = deps;
  const heartbeat = (done: number) => live.heartbeat({ done });
  const throwIfCancelled = () => {
    if (live.signal.aborted) throw new CancelledFailure('Export aborted');
  };
  const scope: ExportScope = {
    versionId: input.versionId,
    createdBefore: await taskStartTime(db, input.taskId),
    selection: input.selection,
    excludeDiscarded: input.includeDiscardedDuplicates === false,
    excludeRepeatedFrames: input.includeRepeatedFrames === false,
  };
  return readConsistently(db, async (snapshot) => {
    const total = await countExportMedia(snapshot, scope);
    const sources = await batchSources(snapshot, input.versionId);
    const taken: TakenNames = (names) => ownedFileNames(snapshot, input.versionId, scope.createdBefore, names);
    const format = exportFormatOf(input.format);
    const { layout } = format;
    const imagesFolder = layout.imagesFolder === 'always' || (layout.imagesFolder === 'asked' && input.includeImages);
    // The metadata file streams straight in when it is the archive's only entry; when images or
    // entries of the format's own go in too, it waits in a file while they do, and follows them.
    const direct = !imagesFolder && !layout.ownEntries;
    const scratchPath = (name: string) => path.join(scratchDir, name);
    const metadataOut: Writable = direct ? new PassThrough() : fs.createWriteStream(scratchPath('metadata'));
    let done = 0;
    let reported = 0;
    const writer: MetadataWriter = format.writer(metadataOut, {
      datasetName: input.datasetName,
      exportedAt: new Date(),
      classes: await exportClasses(snapshot, input.versionId),
      scratchPath,
      addEntry: (name, content, options = { compress: true }) => zip.add(content, name, options),
      readBytes: async (record) => {
        throwIfCancelled();
        heartbeat(done);
        return buffer(await openBlob(store, record.sha256, `${record.file_name} (media ${record.media_id})`));
      },
    });
    const metadataEntry = direct ? zip.add(metadataOut as PassThrough, layout.fileName, { compress: true }) : undefined;
    // A failure of the entry shows when it is awaited below.
    metadataEntry?.catch(() => undefined);

    let after: string | null = null;
    try {
      for (;;) {
        throwIfCancelled();
        const rows = await exportPage(snapshot, scope, after, PAGE_SIZE);
        if (rows.length === 0) break;
        const names = await archiveNamesOf(rows, taken);
        const records = rows.map((row) => toExportRecord(row, names.get(row.id)!, sources.get(row.batch_id)));
        await writer.write(records);
        for (const [i, record] of (imagesFolder ? records : []).entries()) {
          const entry = writer.imageEntry ? writer.imageEntry(record) : `images/${record.image_filename}`;
          if (entry === null) continue;
          throwIfCancelled();
          heartbeat(done + i);
          await zip.add(await openBlob(store, record.sha256, `${record.file_name} (media ${record.media_id})`), entry, { compress: false });
        }
        done += rows.length;
        after = rows[rows.length - 1].id;
        heartbeat(done);
        if (Date.now() - reported >= PROGRESS_INTERVAL_MS) {
          reported = Date.now();
          await updateTaskProgress(db, input.taskId, {
            progressPercentage: Math.min(99, Math.floor((95 * done) / Math.max(total, 1))),
            statusMessage: `Packaging ${input.fileName}: ${done}/${total} media`,
          });
        }
      }
      await writer.finish();
    } catch (error) {
      writer.abort();
      discard(metadataOut);
      throw asFailure(error);
    }
    if (metadataEntry) await metadataEntry;
    else await zip.add(fs.createReadStream(scratchPath('metadata')), layout.fileName, { compress: true });
    const labelQuality = await currentLabelQualityReport(snapshot, input.versionId);
    if (labelQuality) await zip.add(Buffer.from(JSON.stringify(labelQuality, null, 2)), LABEL_QUALITY_ENTRY, { compress: true });
    return done;
  });
}

/**
 * EXPORT: streams one version of a dataset into a ZIP in the object store — the metadata file its
 * format's module writes (lib/export/formats/) and, when asked (always for the formats whose layout
 * says so), every item's bytes where the format puts them. Rows are read by keyset pages inside one
 * read-only snapshot; the archive goes out entry by entry while it is stored, so memory stays flat
 * whatever the dataset's size. A retried attempt writes the whole archive again under the same key
 * (readers only ever see a whole one).
 */
export async function packageExport(deps: PackagingDeps, live: Liveness, input: ExportInput): Promise<{ items: number; bytes: number }> {
  const { db, store } = deps;
  await updateTaskProgress(db, input.taskId, {
    status: 'RUNNING',
    phase: 'packaging',
    progressPercentage: 0,
    statusMessage: `Packaging ${input.fileName}`,
  });
  await fs.promises.mkdir(deps.stagingDir, { recursive: true });
  const scratch = path.join(deps.stagingDir, `export-${randomBytes(8).toString('hex')}`);
  await fs.promises.mkdir(scratch);
  const zip = createZipWriter();
  const stored = store.putStream(exportArchiveKey(input.taskId, input.fileName), zip.output);
  stored.catch(() => undefined);
  try {
    const items = await packInto(deps, live, zip, input, scratch);
    await zip.finalize();
    return { items, bytes: await stored };
  } catch (error) {
    zip.destroy(error as Error);
    await stored.catch(() => undefined);
    throw error;
  } finally {
    await fs.promises.rm(scratch, { recursive: true, force: true });
  }
}
