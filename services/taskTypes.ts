import type { Db } from '../db/connection';
import type { Dataset } from '../db/models';
import { requireDatasetTransition, transitionDatasetStatus, updateDatasetCounts } from '../db/repositories/datasets';
import { hasPendingUploads } from '../db/repositories/ingestion';
import { countBatchMedia, mediaCounts } from '../db/repositories/media';
import { countFacets } from '../db/repositories/clusterFacets';
import { analyzeExploredTables, vacuumMedia } from '../db/repositories/plannerStatistics';
import { clearSelectionParts } from '../db/repositories/selectionParts';
import { markRestoring } from '../db/repositories/snapshots';
import { endTaskUnfinished, updateTaskProgress } from '../db/repositories/tasks';
import { dropUnusedVersions, headVersion } from '../db/repositories/versions';
import { batchFailedEmpty, TRANSITIONS, type DatasetStatus } from '../lib/datasetStates';
import { taskOf, taskTypesWhere, type Ending, type EndStep, type TaskInput, type TaskType } from '../lib/tasks';

export type { Ending };

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
 * A task that added less than this share of its dataset's media leaves the planner's statistics to autovacuum (which
 * analyzes a table once a tenth of it changed): ANALYZE of the explored tables costs 1.1-1.5 s of Postgres at 100,000
 * media however few rows changed, at the moment Explore computes its forgotten answers again.
 */
export const FRESH_STATISTICS_SHARE = 0.01;

/**
 * A task's final transaction, then what the first Explore after it needs: the per-cluster counts of
 * the dataset's issue types, labels and tags when its writes cleared them, its rewritten media rows
 * vacuumed (so ranked pages read their hits from an index alone), and fresh planner statistics for
 * the rows its steps wrote. Without them Postgres plans for the tables as they were before the
 * task (a tags page of 5,000 new media took 600 ms, 28 ms once analyzed) until autovacuum comes. A commit that
 * returns the share of the dataset's media it added skips the statistics under FRESH_STATISTICS_SHARE.
 * All are only speed: Explore counts the rows itself while counts are missing, so none failing
 * fails the task.
 */
export async function commitTaskEnd(db: Db, datasetId: string, commit: (trx: Db) => Promise<void | { addedShare: number }>): Promise<void> {
  const added = await db.transaction(commit);
  await countFacets(db, (await headVersion(db, datasetId)).id, FACET_COUNT_TIMEOUT_MS).catch(() => undefined);
  await vacuumMedia(db, MEDIA_VACUUM_TIMEOUT_MS).catch(() => undefined);
  if ((added?.addedShare ?? 1) >= FRESH_STATISTICS_SHARE) await analyzeExploredTables(db).catch(() => undefined);
}

/** The task COMPLETED with `message` (its dataset's status is the caller's). */
export async function markTaskCompleted(trx: Db, taskId: string, message: string): Promise<void> {
  await updateTaskProgress(trx, taskId, { status: 'COMPLETED', statusMessage: message, progressPercentage: 100, phase: 'done' });
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
async function endBatch(trx: Db, step: Extract<EndStep, { kind: 'batch' }>): Promise<void> {
  const back = (await receivedButNotIndexed(trx, step.datasetId, step.batchId)) ? TRANSITIONS.batchFailedWithMedia : batchFailedEmpty(step.previousStatus);
  await transitionDatasetStatus(trx, step.datasetId, back, { progress: 100 });
  await updateDatasetCounts(trx, step.datasetId, await mediaCounts(trx, (await headVersion(trx, step.datasetId)).id));
}

async function runEndStep(trx: Db, step: EndStep): Promise<void> {
  switch (step.kind) {
    case 'dataset':
      await transitionDatasetStatus(trx, step.datasetId, step.transition, step.errorMessage === undefined ? {} : { error_message: step.errorMessage });
      return;
    case 'batch':
      return endBatch(trx, step);
    case 'restore':
      await markRestoring(trx, step.snapshotId, null);
      return;
    case 'selectionParts':
      await clearSelectionParts(trx, step.taskId);
      return;
  }
}

/**
 * Ends a task FAILED or ABORTED and leaves its datasets where its module says (lib/tasks), in one transaction;
 * a restore's half-made copy goes after it. The workflow's failure path (the endTaskUnfinished activity) and the
 * repair of a lost workflow (services/tasks.ts) both call it, so a terminated workflow leaves its datasets as a
 * failed one does; it is safe to run twice.
 */
export async function endUnfinishedTask<T extends TaskType>(db: Db, taskType: T, input: TaskInput<T>, ending: Ending): Promise<void> {
  const steps = (taskOf(taskType).endsUnfinished as (input: TaskInput<T>, ending: Ending) => EndStep[])(input, ending);
  await db.transaction(async (trx) => {
    await endTaskUnfinished(trx, input.taskId, ending);
    for (const step of steps) await runEndStep(trx, step);
  });
  for (const step of steps) if (step.kind === 'restore') await dropUnusedVersions(db, step.datasetId);
}

/** The task types the storage collector waits for before it releases blobs. */
export const BLOB_STORING_TASK_TYPES = taskTypesWhere('storesBlobs');
