import type { AnalysisDeps } from '../services/analysisResults';
import { indexBatch } from '../services/batchIndexing';
import type { TaskRef } from '../services/taskProgress';
import { activityLiveness, heartbeating } from './liveness';

/**
 * The placing of an added batch into the dataset's clusters and scores (services/batchIndexing.ts). The full
 * analysis is the fan-out of activities/knnGraph.ts; its one-pass reference is services/singlePassAnalysis.ts.
 */
export function createAnalysisActivities(deps: AnalysisDeps) {
  return heartbeating({
    indexBatch: (ref: TaskRef & { batchId: string }) => indexBatch(deps, activityLiveness(), ref),
  });
}
