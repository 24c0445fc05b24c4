import type { TaskRef } from '../services/taskProgress';
import { evaluateViews, type ViewMonitoringDeps } from '../services/viewMonitoring';

/** Saved-view monitoring after a batch is indexed: an adapter over services/viewMonitoring.ts. */
export function createViewMonitoringActivities(deps: ViewMonitoringDeps) {
  return {
    evaluateViews: (ref: TaskRef & { batchId: string }) => evaluateViews(deps, ref),
  };
}
