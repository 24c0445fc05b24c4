import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { updateTaskProgress } from '../db/repositories/tasks';
import { MetadataFileError, parseMetadataFile } from '../lib/metadata/parseMetadataFile';
import type { CustomMetadataInput } from '../workflows/contracts';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import { applyMetadataRecords, completeCustomMetadata, type MetadataApplied } from '../services/customMetadata';
import { heartbeating } from './liveness';

type Release = Pick<CustomMetadataInput, 'taskId' | 'datasetId' | 'previousStatus'>;

/**
 * CUSTOM_METADATA: applies captions, labels and arbitrary fields from an uploaded file to the
 * dataset's media (matched by file_name or media_id). Unknown names are reported in the task's
 * status message, not fatal. Re-running it writes the same values again (idempotent).
 */
export function createCustomMetadataActivities(deps: { db: Db; store: ObjectStore }) {
  const { db } = deps;
  return heartbeating({
    async importCustomMetadata(input: CustomMetadataInput): Promise<MetadataApplied> {
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
      const { applied, unknown } = await applyMetadataRecords(db, input.datasetId, records, (index) => Context.current().heartbeat(index));
      return { applied, unknown };
    },

    completeCustomMetadata: (input: Release & MetadataApplied) => completeCustomMetadata(db, input),
  });
}
