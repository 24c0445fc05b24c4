import type { Db } from '../db/connection';
import { transitionDatasetStatus } from '../db/repositories/datasets';
import { markRestoring } from '../db/repositories/snapshots';
import { endTaskUnfinished } from '../db/repositories/tasks';
import { dropUnusedVersions } from '../db/repositories/versions';
import { releaseTransition, TRANSITIONS, type DatasetOperation, type DatasetStatus, type TaskType } from '../lib/datasetStates';
import type { EnrichmentInput, SnapshotCloneInput, SnapshotRestoreInput } from '../workflows/contracts';

/** Why a task ended without finishing. */
export interface Ending {
  aborted: boolean;
  message: string;
}

type Release = { taskId: string; datasetId: string; previousStatus: DatasetStatus };

/** The task FAILED or ABORTED; the dataset back to the status `operation` claimed it from. */
function released(operation: DatasetOperation) {
  return async (db: Db, input: Release, ending: Ending): Promise<void> => {
    await db.transaction(async (trx) => {
      await endTaskUnfinished(trx, input.taskId, ending);
      await transitionDatasetStatus(trx, input.datasetId, releaseTransition(operation, input.previousStatus));
    });
  };
}

/** The dataset ERROR with the reason (a retry starts it again). */
async function endCreation(db: Db, input: { taskId: string; datasetId: string }, ending: Ending): Promise<void> {
  await db.transaction(async (trx) => {
    await endTaskUnfinished(trx, input.taskId, ending);
    await transitionDatasetStatus(trx, input.datasetId, TRANSITIONS.creationFailed, { error_message: ending.message });
  });
}

/** The new dataset is ERROR with the reason; the source goes back to the status it had. */
async function endEnrichment(db: Db, input: EnrichmentInput, ending: Ending): Promise<void> {
  await db.transaction(async (trx) => {
    await transitionDatasetStatus(trx, input.datasetId, TRANSITIONS.enrichmentFailed, { error_message: ending.message });
    await transitionDatasetStatus(trx, input.sourceDatasetId, releaseTransition('enrich', input.sourcePreviousStatus));
    await endTaskUnfinished(trx, input.taskId, ending);
  });
}

/** The dataset as it was before the restore; a half-made copy goes. */
async function endRestore(db: Db, input: SnapshotRestoreInput, ending: Ending): Promise<void> {
  await db.transaction(async (trx) => {
    await markRestoring(trx, input.snapshotId, null);
    await transitionDatasetStatus(trx, input.datasetId, releaseTransition('restore', input.previousStatus));
    await endTaskUnfinished(trx, input.taskId, ending);
  });
  await dropUnusedVersions(db, input.datasetId);
}

/** The clone is ERROR with the reason; the snapshot it was made from is untouched. */
async function endClone(db: Db, input: SnapshotCloneInput, ending: Ending): Promise<void> {
  await db.transaction(async (trx) => {
    await transitionDatasetStatus(trx, input.datasetId, TRANSITIONS.cloneFailed, { error_message: ending.message });
    await endTaskUnfinished(trx, input.taskId, ending);
  });
}

/**
 * How a task of each of these types ends unfinished: its workflow's failure path and the repair of a
 * lost workflow (services/tasks.ts) both call it, so a terminated workflow leaves its datasets as a
 * failed one does. Each is safe to run twice.
 */
export const END_UNFINISHED = {
  DATASET_CREATION: endCreation,
  CUSTOM_METADATA: released('import_metadata'),
  LABEL_PROPAGATION: released('propagate_labels'),
  LABEL_QUALITY: released('check_labels'),
  ENRICHMENT: endEnrichment,
  SNAPSHOT_RESTORE: endRestore,
  SNAPSHOT_CLONE: endClone,
} satisfies Partial<Record<TaskType, (db: Db, input: never, ending: Ending) => Promise<void>>>;

export const endsUnfinished = (type: TaskType): type is keyof typeof END_UNFINISHED => type in END_UNFINISHED;
