import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { requireDatasetTransition } from '../db/repositories/datasets';
import { applyMetadataRecord, topLevelMediaNames } from '../db/repositories/media';
import { updateTaskProgress } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import { MetadataFileError, parseMetadataFile } from '../lib/metadata/parseMetadataFile';
import { releaseTransition } from '../lib/datasetStates';
import type { CustomMetadataInput } from '../workflows/contracts';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import { TASK_TYPE_REGISTRY, type Ending } from '../services/taskTypes';


const UNKNOWN_SHOWN = 10;

type Release = Pick<CustomMetadataInput, 'taskId' | 'datasetId' | 'previousStatus'>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * CUSTOM_METADATA: applies captions, labels and arbitrary fields from an uploaded file to the
 * dataset's media (matched by file_name or media_id). Unknown names are reported in the task's
 * status message, not fatal. Re-running it writes the same values again (idempotent).
 */
export function createCustomMetadataActivities(deps: { db: Db; store: ObjectStore }) {
  const { db } = deps;
  return {
    async importCustomMetadata(input: CustomMetadataInput): Promise<{ applied: number; unknown: string[] }> {
      await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Importing custom metadata', progressPercentage: 0 });
      let records;
      try {
        records = await parseMetadataFile(await deps.store.get(blobKey(input.blobSha256)), input.format);
      } catch (error) {
        if (error instanceof MetadataFileError) {
          throw ApplicationFailure.create({ type: 'InvalidMetadataFile', message: error.message, nonRetryable: true });
        }
        throw error;
      }
      const version = await headVersion(db, input.datasetId);
      const media = await topLevelMediaNames(db, version.id);
      const byName = new Map(media.map((m) => [m.file_name, m.id]));
      const ids = new Set(media.map((m) => m.id));
      const unknown: string[] = [];
      let applied = 0;
      await db.transaction(async (trx) => {
        for (const [index, record] of records.entries()) {
          if (index % 500 === 0) Context.current().heartbeat(index);
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
    },

    /** The task COMPLETED with what was applied; the dataset back to the status the import claimed it from. */
    async completeCustomMetadata(input: Release & { applied: number; unknown: string[] }): Promise<void> {
      const { applied, unknown } = input;
      const shown = unknown.slice(0, UNKNOWN_SHOWN).join(', ') + (unknown.length > UNKNOWN_SHOWN ? ', …' : '');
      await db.transaction(async (trx) => {
        await updateTaskProgress(trx, input.taskId, {
          status: 'COMPLETED',
          progressPercentage: 100,
          statusMessage: `Imported metadata for ${applied} media` + (unknown.length ? `; ${unknown.length} unknown: ${shown}` : ''),
        });
        await requireDatasetTransition(trx, input.datasetId, releaseTransition('import_metadata', input.previousStatus));
      });
    },

    /** The task FAILED or ABORTED; the dataset back to where it was (whatever was applied stays, in one transaction or not at all). */
    async failCustomMetadata(input: Release & Ending): Promise<void> {
      await TASK_TYPE_REGISTRY.CUSTOM_METADATA.endUnfinished(db, input, input);
    },
  };
}
