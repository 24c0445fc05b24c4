import type { Db } from '../db/connection';
import type { Dataset } from '../db/models';
import { requireDatasetTransition, transitionDatasetStatus, updateDatasetCounts } from '../db/repositories/datasets';
import { hasPendingUploads } from '../db/repositories/ingestion';
import { countBatchMedia, mediaCounts } from '../db/repositories/media';
import { countFacets } from '../db/repositories/clusterFacets';
import { analyzeExploredTables, vacuumMedia } from '../db/repositories/plannerStatistics';
import { markRestoring } from '../db/repositories/snapshots';
import { endTaskUnfinished, updateTaskProgress } from '../db/repositories/tasks';
import { dropUnusedVersions, headVersion } from '../db/repositories/versions';
import { batchFailedEmpty, releaseTransition, TRANSITIONS, type DatasetOperation, type DatasetStatus, type TaskType } from '../lib/datasetStates';
import type {
  DatasetCreationInput,
  EnrichmentInput,
  MediaAdditionInput,
  ReindexInput,
  SnapshotCloneInput,
  SnapshotRestoreInput,
} from '../workflows/contracts';

/** Why a task ended without finishing. */
export interface Ending {
  aborted: boolean;
  message: string;
}

/**
 * A task that finished: its dataset's guarded transition (TransitionRefused unless it happens or had
 * happened) and the task COMPLETED with `message`, in the caller's transaction.
 */
export async function completeTask(
  trx: Db,
  task: { taskId: string; datasetId: string },
  transition: { from: readonly DatasetStatus[]; to: DatasetStatus },
  message: string,
  datasetPatch: Partial<Pick<Dataset, 'progress'>> = {},
): Promise<void> {
  await requireDatasetTransition(trx, task.datasetId, transition, datasetPatch);
  await markTaskCompleted(trx, task.taskId, message);
}

/**
 * The commit activities have a minute; counting and vacuuming stop well before, leaving Explore to count from the
 * rows and autovacuum to finish (a vacuum after 1,000,000 rewritten media rows took 1.9 s).
 */
const FACET_COUNT_TIMEOUT_MS = 30_000;
const MEDIA_VACUUM_TIMEOUT_MS = 10_000;

/**
 * A task's final transaction, then what the first Explore after it needs: the per-cluster counts of
 * the dataset's issue types, labels and tags when its writes cleared them, its rewritten media rows
 * vacuumed (so ranked pages read their hits from an index alone), and fresh planner statistics for
 * the rows its steps wrote. Without them Postgres plans for the tables as they were before the
 * task (a tags page of 5,000 new media took 600 ms, 28 ms once analyzed) until autovacuum comes.
 * All are only speed: Explore counts the rows itself while counts are missing, so none failing
 * fails the task.
 */
export async function commitTaskEnd(db: Db, datasetId: string, commit: (trx: Db) => Promise<void>): Promise<void> {
  await db.transaction(commit);
  await countFacets(db, (await headVersion(db, datasetId)).id, FACET_COUNT_TIMEOUT_MS).catch(() => undefined);
  await vacuumMedia(db, MEDIA_VACUUM_TIMEOUT_MS).catch(() => undefined);
  await analyzeExploredTables(db).catch(() => undefined);
}

/** The task COMPLETED with `message` (its dataset's status is the caller's). */
export async function markTaskCompleted(trx: Db, taskId: string, message: string): Promise<void> {
  await updateTaskProgress(trx, taskId, { status: 'COMPLETED', statusMessage: message, progressPercentage: 100, phase: 'done' });
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

/** The task alone ends: nothing else was claimed (an export). */
async function endTaskOnly(db: Db, input: { taskId: string }, ending: Ending): Promise<void> {
  await endTaskUnfinished(db, input.taskId, ending);
}

/** Whether batch `batchId` left media in the dataset, or any batch left files that were never decoded. */
async function receivedButNotIndexed(db: Db, datasetId: string, batchId: string): Promise<boolean> {
  const version = await headVersion(db, datasetId);
  return (await countBatchMedia(db, version.id, batchId)) > 0 || (await hasPendingUploads(db, datasetId));
}

/**
 * A failed or aborted batch or reindex: the dataset goes back to `previousStatus`, or to PARTIAL
 * INDEX when media of the batch already made it in or files were received but not decoded yet (the
 * next reindex indexes whatever was received).
 */
export async function endBatch(
  db: Db,
  input: { taskId: string; datasetId: string; batchId: string; previousStatus: DatasetStatus },
  ending: Ending,
): Promise<void> {
  await db.transaction(async (trx) => {
    await endTaskUnfinished(trx, input.taskId, ending);
    const back = (await receivedButNotIndexed(trx, input.datasetId, input.batchId))
      ? TRANSITIONS.batchFailedWithMedia
      : batchFailedEmpty(input.previousStatus);
    await transitionDatasetStatus(trx, input.datasetId, back, { progress: 100 });
    await updateDatasetCounts(trx, input.datasetId, await mediaCounts(trx, (await headVersion(trx, input.datasetId)).id));
  });
}

/** The dataset ERROR with the reason (a retry starts it again). */
async function endCreation(db: Db, input: Pick<DatasetCreationInput, 'taskId' | 'datasetId'>, ending: Ending): Promise<void> {
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

type EndUnfinished = (db: Db, input: never, ending: Ending) => Promise<void>;

/**
 * What the service knows of each task type, in one place: the workflow that runs it and how it ends
 * unfinished. Its workflow's failure path and the repair of a lost workflow (services/tasks.ts) both
 * call `endUnfinished`, so a terminated workflow leaves its datasets as a failed one does; each is
 * safe to run twice. `storesBlobs`: the task stores blobs before the rows naming them (or reads a blob
 * only its input names), so it becomes active under the blob release lock and the storage collector
 * releases no blob while it runs. Whether a type can be aborted or retried is `TASK_RULES`
 * (lib/datasetStates.ts), which the docs and the Tasks API read too.
 */
export const TASK_TYPE_REGISTRY = {
  DATASET_CREATION: { workflow: 'datasetCreationWorkflow', endUnfinished: endCreation, storesBlobs: true },
  MEDIA_ADDITION: {
    workflow: 'mediaAdditionWorkflow',
    endUnfinished: (db: Db, input: MediaAdditionInput, ending: Ending) => endBatch(db, input, ending),
    storesBlobs: true,
  },
  REINDEX: {
    workflow: 'reindexWorkflow',
    endUnfinished: (db: Db, input: ReindexInput, ending: Ending) => endBatch(db, { ...input, batchId: input.taskId, previousStatus: 'PARTIAL INDEX' }, ending),
    storesBlobs: true,
  },
  EXPORT: { workflow: 'exportWorkflow', endUnfinished: endTaskOnly },
  CUSTOM_METADATA: { workflow: 'customMetadataWorkflow', endUnfinished: released('import_metadata'), storesBlobs: true },
  LABEL_PROPAGATION: { workflow: 'labelPropagationWorkflow', endUnfinished: released('propagate_labels') },
  LABEL_QUALITY: { workflow: 'labelQualityWorkflow', endUnfinished: released('check_labels') },
  ENRICHMENT: { workflow: 'enrichmentWorkflow', endUnfinished: endEnrichment },
  SNAPSHOT_RESTORE: { workflow: 'snapshotRestoreWorkflow', endUnfinished: endRestore },
  SNAPSHOT_CLONE: { workflow: 'snapshotCloneWorkflow', endUnfinished: endClone },
} satisfies Record<TaskType, { workflow: string; endUnfinished: EndUnfinished; storesBlobs?: true }>;

/** The task types the storage collector waits for before it releases blobs. */
export const BLOB_STORING_TASK_TYPES = (Object.keys(TASK_TYPE_REGISTRY) as TaskType[]).filter((type) => 'storesBlobs' in TASK_TYPE_REGISTRY[type]);
