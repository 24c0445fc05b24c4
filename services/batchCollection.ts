import fs from 'node:fs';
import { recordedFileNames, recordUploadedFiles, transactionLabels } from '../db/repositories/ingestion';
import type { Db } from '../db/connection';
import { labelRefusal } from '../lib/labels/labelRule';
import { mediaPath, mediaPathRefusal } from '../lib/media/mediaPath';
import { mediaKindOf } from '../lib/media/mediaTypes';
import { archiveEntries, type ArchiveLimits } from '../lib/sources/archive';
import { localEntries } from '../lib/sources/localPath';
import { parseS3Uri, type S3Settings } from '../lib/sources/s3';
import type { S3SourcePolicy } from '../lib/sources/sourcePolicy';
import { MediaSourceError, MissingEntryError, type SourceEntry } from '../lib/sources/sourceEntry';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import { StagingLimitError, stageStream } from '../lib/storage/staging';
import { describeSource, type MediaAdditionInput } from '../workflows/contracts';
import { openS3Source } from './s3Sources';
import { heartbeatOrStop, type Liveness } from './taskLiveness';
import { createProgressReporter } from './taskProgress';

/** Names of missing manifest entries shown in the task's status message. */
const MISSING_SHOWN = 10;

export interface BatchSourceDeps {
  db: Db;
  store: ObjectStore;
  stagingDir: string;
  archives: ArchiveLimits;
  s3: S3Settings;
  s3SourcePolicy: S3SourcePolicy;
}

/** What a collection found: media recorded, entries skipped as not media, and (the first few) listed but missing. */
export interface CollectedMedia {
  media: number;
  skipped: number;
  missing: string[];
}

/**
 * Brings the media of an archive, object-storage folder or manifest, or local path into the
 * object store and records them as the batch's uploaded files, one at a time (never a whole
 * archive or folder in memory or on disk). Files already recorded are skipped, so a retried or
 * resumed run continues where the last stopped. Non-media entries are skipped and counted. A source that cannot be
 * read, or holds no media, throws MediaSourceError.
 */
export async function collectBatchMedia(deps: BatchSourceDeps, live: Liveness, input: MediaAdditionInput): Promise<CollectedMedia> {
  const { db, store } = deps;
  const recorded = await recordedFileNames(db, input.transactionId);
  const folderLabels = (await transactionLabels(db, input.transactionId))?.labelsFrom === 'folder';
  const report = createProgressReporter(db, input, 'collect', 'Collecting media');
  const found = { media: 0, skipped: 0, missing: [] as string[] };
  await withEntries(deps, input, async (entries) => {
    for await (const entry of entries) {
      heartbeatOrStop(live, found.media);
      const { fileName, folder } = mediaPath(entry.name);
      const kind = mediaKindOf(fileName);
      if (!kind) {
        found.skipped++;
        continue;
      }
      const tooLong = mediaPathRefusal(fileName);
      if (tooLong) throw new MediaSourceError(tooLong);
      const badLabel = folderLabels && folder !== null ? labelRefusal(folder) : undefined;
      if (badLabel) throw new MediaSourceError(`The folder of ${fileName}, its label, ${badLabel}: a label is 1-100 characters of one printable line`);
      if (!recorded.has(fileName)) {
        let staged;
        try {
          staged = await stageStream(await entry.open(), deps.stagingDir, { maxBytes: deps.archives.maxEntryBytes });
        } catch (error) {
          if (error instanceof MissingEntryError) {
            found.missing.push(entry.name);
            continue;
          }
          if (error instanceof StagingLimitError) throw new MediaSourceError(`${entry.name} is larger than ${deps.archives.maxEntryBytes} bytes`);
          throw error;
        }
        try {
          await store.putFile(blobKey(staged.sha256), staged.path);
        } finally {
          await fs.promises.rm(staged.path, { force: true });
        }
        await recordUploadedFiles(db, input.datasetId, input.transactionId, [
          { fileName, mediaKind: kind, sha256: staged.sha256, size: staged.size, folder, label: folderLabels ? folder : null },
        ]);
      }
      found.media++;
      await report(found.media, found.media);
    }
  });
  if (found.media === 0) {
    throw new MediaSourceError(`No media files found in ${describeSource(input.source)}${found.missing.length ? ` (${found.missing.length} listed files are missing)` : ''}`);
  }
  await report(found.media, found.media, true);
  return { ...found, missing: found.missing.slice(0, MISSING_SHOWN) };
}

async function withEntries<T>(deps: BatchSourceDeps, input: MediaAdditionInput, use: (entries: AsyncGenerator<SourceEntry>) => Promise<T>): Promise<T> {
  const { db, store } = deps;
  const { source } = input;
  switch (source.kind) {
    case 'archive':
      return store.withLocalFile(blobKey(source.blobSha256), (file) => use(archiveEntries(file, source.fileName, deps.archives)));
    case 's3': {
      const location = parseS3Uri(source.uri);
      if (!location) throw new MediaSourceError(`Invalid S3 URI: ${source.uri}`);
      // Checked again here: the policy or the manifest may have changed since the request.
      const opened = await openS3Source(
        { db, s3: deps.s3, policy: deps.s3SourcePolicy },
        input.datasetId,
        { location, uri: source.uri, assumeRole: source.assumeRole },
        `media-dataset-${input.taskId}`,
      );
      try {
        return await use(opened.entries);
      } finally {
        opened.client.destroy();
      }
    }
    case 'local':
      return use(localEntries(source.path, deps.archives));
    case 'upload':
      throw new Error('uploaded files are recorded by the request');
  }
}
