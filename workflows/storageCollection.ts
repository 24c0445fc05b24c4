import { condition, continueAsNew, patched, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createStorageCollectionActivities } from '../activities/storageCollection';
import { LIVENESS_TIMEOUT, OUTAGE_RETRY } from './activityProxies';
import { collectNowSignal } from './contracts';

/** Each step works through its backlog in batches, heartbeating; a crash resumes from what is left. */
const steps = proxyActivities<ReturnType<typeof createStorageCollectionActivities>>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: LIVENESS_TIMEOUT,
  retry: OUTAGE_RETRY,
});

/** Runs kept in one history before it starts afresh (continue-as-new), so the history stays small. */
const RUNS_PER_HISTORY = 50;

/**
 * The storage collector: purges deleted datasets and snapshots past their retention, then releases
 * the blobs, prepared model inputs, single vectors, vector spaces and export archives nothing uses any more. Every step is idempotent and
 * records what it may release before it removes rows, so it is safe to stop at any point and run again.
 * It runs every STORAGE_COLLECTION_INTERVAL_MINUTES and whenever signalled.
 */
export async function storageCollectionWorkflow(): Promise<void> {
  let requested = false;
  setHandler(collectNowSignal, () => {
    requested = true;
  });
  for (let run = 0; run < RUNS_PER_HISTORY; run++) {
    requested = false;
    await steps.purgeDeletedDatasets();
    await steps.purgeDeletedSnapshots();
    await steps.releaseExpiredExportArchives();
    await steps.releaseBlobs();
    if (patched('release-model-inputs')) await steps.releaseModelInputs();
    // Added after collectors were running: histories recorded before it replay without the step.
    if (patched('release-vector-points')) await steps.releaseVectorPoints();
    await steps.releaseVectorSpaces();
    await steps.releaseExportArchives();
    const { intervalMinutes } = await steps.collectionSettings();
    await condition(() => requested, `${intervalMinutes} minutes`);
  }
  await continueAsNew<typeof storageCollectionWorkflow>();
}
