import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { MetadataFileError } from '../lib/metadata/parseMetadataFile';
import type { ObjectStore } from '../lib/storage/objectStore';
import { applyMetadataFile, completeCustomMetadata, type MetadataApplied } from '../services/customMetadata';
import type { CustomMetadataInput } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

type Release = Pick<CustomMetadataInput, 'taskId' | 'datasetId' | 'previousStatus'>;

/**
 * CUSTOM_METADATA: adapters over services/customMetadata.ts, which applies captions, labels and arbitrary fields from
 * an uploaded file to the dataset's media; a file that cannot be read fails the activity for good.
 */
export function createCustomMetadataActivities(deps: { db: Db; store: ObjectStore }) {
  return heartbeating({
    async importCustomMetadata(input: CustomMetadataInput): Promise<MetadataApplied> {
      try {
        return await applyMetadataFile(deps, activityLiveness(), input);
      } catch (error) {
        if (error instanceof MetadataFileError) throw ApplicationFailure.create({ type: 'InvalidMetadataFile', message: error.message, nonRetryable: true });
        throw error;
      }
    },

    completeCustomMetadata: (input: Release & MetadataApplied) => completeCustomMetadata(deps.db, input),
  });
}
