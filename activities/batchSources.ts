import { ApplicationFailure } from '@temporalio/activity';
import { collectBatchMedia, type BatchSourceDeps } from '../services/batchCollection';
import { MediaSourceError } from '../lib/sources/sourceEntry';
import type { MediaAdditionInput } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

/**
 * A batch's media from an archive, object storage or a local path (services/batchCollection.ts); a source that cannot
 * be read or holds no media fails the activity for good, its message the task's.
 */
export function createBatchSourceActivities(deps: BatchSourceDeps) {
  return heartbeating({
    async collectBatchMedia(input: MediaAdditionInput) {
      try {
        return await collectBatchMedia(deps, activityLiveness(), input);
      } catch (error) {
        if (error instanceof MediaSourceError) throw ApplicationFailure.create({ type: 'MediaSourceError', message: error.message, nonRetryable: true });
        throw error;
      }
    },
  });
}
