import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { applyMetadataRecord, topLevelMediaNames } from '../db/repositories/media';
import { updateTaskProgress } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import { transitionDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import { releaseTransition } from '../lib/datasetStates';
import type { CustomMetadataInput } from '../workflows/contracts';
import { metadataFormatOf, parseMetadataFile, type MetadataRecord } from '../lib/metadata/parseMetadataFile';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import type { StagedFile } from '../lib/storage/staging';
import { claimDatasetFor, requireStatusFor } from './datasetStates';
import type { Liveness } from './taskLiveness';
import { createTask, type TaskDeps } from './taskWorkflows';
import { storeBlobs } from './blobWrites';
import { commitTaskEnd, completeTask } from './taskTypes';

/** Stores the metadata file and starts a CUSTOM_METADATA task that applies it. */
export async function importCustomMetadata(
  deps: TaskDeps & { store: ObjectStore },
  dataset: DatasetRow,
  user: User,
  file: StagedFile & { fileName: string },
): Promise<string> {
  requireStatusFor(dataset, 'import_metadata');
  const format = metadataFormatOf(file.fileName)!;
  let previousStatus = dataset.status_new;
  return storeBlobs(deps, [file], () =>
    createTask(
      deps,
      {
        taskType: 'CUSTOM_METADATA',
        datasetId: dataset.id,
        user,
        statusMessage: `Queued: ${file.fileName}`,
        input: (taskId): CustomMetadataInput => ({ taskId, datasetId: dataset.id, blobSha256: file.sha256, format, previousStatus }),
      },
      async (trx) => {
        previousStatus = await claimDatasetFor(trx, dataset, 'import_metadata');
      },
      async (db) => {
        await transitionDatasetStatus(db, dataset.id, releaseTransition('import_metadata', previousStatus));
      },
    ),
  );
}

/** What an import applied, and the names (or ids, or rows) it found no media for. */
export interface MetadataApplied {
  applied: number;
  unknown: string[];
}

const UNKNOWN_SHOWN = 10;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * CUSTOM_METADATA's work: the task RUNNING, the uploaded file parsed (a MetadataFileError when it cannot be) and its
 * records applied. Unknown names are reported, not fatal; a repeat writes the same values again.
 */
export async function applyMetadataFile(deps: { db: Db; store: ObjectStore }, live: Liveness, input: CustomMetadataInput): Promise<MetadataApplied> {
  await updateTaskProgress(deps.db, input.taskId, { status: 'RUNNING', statusMessage: 'Importing custom metadata', progressPercentage: 0 });
  const records = await parseMetadataFile(await deps.store.get(blobKey(input.blobSha256)), input.format);
  const { applied, unknown } = await applyMetadataRecords(deps.db, input.datasetId, records, (index) => live.heartbeat(index));
  return { applied, unknown };
}

/**
 * Applies parsed records to the head version's top-level media, matched by media_id or else by
 * file_name, in one transaction (all or nothing). Writing the same values again is harmless.
 */
async function applyMetadataRecords(db: Db, datasetId: string, records: MetadataRecord[], onProgress: (index: number) => void): Promise<MetadataApplied> {
  const version = await headVersion(db, datasetId);
  const media = await topLevelMediaNames(db, version.id);
  const byName = new Map(media.map((m) => [m.file_name, m.id]));
  const ids = new Set(media.map((m) => m.id));
  const unknown: string[] = [];
  let applied = 0;
  await db.transaction(async (trx) => {
    for (const [index, record] of records.entries()) {
      if (index % 500 === 0) onProgress(index);
      const mediaId = record.mediaId && UUID.test(record.mediaId) && ids.has(record.mediaId) ? record.mediaId : byName.get(record.fileName ?? '');
      if (!mediaId) {
        unknown.push(record.fileName ?? record.mediaId ?? `row ${index + 1}`);
        continue;
      }
      await applyMetadataRecord(trx, version.id, mediaId, record);
      applied++;
    }
  });
  return { applied, unknown };
}

/** The task COMPLETED with what was applied; the dataset back to the status the import claimed it from. */
export async function completeCustomMetadata(db: Db, input: Pick<CustomMetadataInput, 'taskId' | 'datasetId' | 'previousStatus'> & MetadataApplied): Promise<void> {
  const { applied, unknown } = input;
  const shown = unknown.slice(0, UNKNOWN_SHOWN).join(', ') + (unknown.length > UNKNOWN_SHOWN ? ', …' : '');
  const message = `Imported metadata for ${applied} media` + (unknown.length ? `; ${unknown.length} unknown: ${shown}` : '');
  await commitTaskEnd(db, input.datasetId, (trx) => completeTask(trx, input, releaseTransition('import_metadata', input.previousStatus), message));
}
