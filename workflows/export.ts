import { CancellationScope, proxyActivities } from '@temporalio/workflow';
import type { createExportActivities } from '../activities/export';
import { LIVENESS_TIMEOUT, OUTAGE_RETRY } from './activityProxies';
import type { ExportInput } from './contracts';
import { runTask } from './runTask';

/**
 * Packaging streams the whole archive in one attempt; a retry (through an outage, like every task
 * activity) writes it again from the first page.
 */
const packaging = proxyActivities<ReturnType<typeof createExportActivities>>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: LIVENESS_TIMEOUT,
  retry: OUTAGE_RETRY,
});

const recording = proxyActivities<ReturnType<typeof createExportActivities>>({
  startToCloseTimeout: '1 minute',
  retry: OUTAGE_RETRY,
});

/** EXPORT: packages one version of a dataset into a ZIP in the object store; the task records the outcome (a failed one stores nothing). */
export async function exportWorkflow(input: ExportInput): Promise<void> {
  await runTask('EXPORT', input, async () => {
    const packaged = await packaging.packageExport(input);
    await CancellationScope.nonCancellable(() => recording.completeExport({ taskId: input.taskId, fileName: input.fileName, ...packaged }));
  });
}
