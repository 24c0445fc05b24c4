import type { Db } from '../db/connection';
import { reportTaskProgress } from '../db/repositories/tasks';

export interface TaskRef {
  taskId: string;
  datasetId: string;
}

/** Share of the overall progress (0-100) each stage of an indexing workflow covers. */
export const STAGE_RANGES = {
  collect: [0, 10],
  ingest: [10, 40],
  embed: [40, 80],
  analyze: [80, 95],
  /** An enrichment: the copy comes before, caption embedding after. */
  enrich: [20, 90],
} as const;

/**
 * Reports a stage's progress to the task and the dataset, at most once a second, so clients polling
 * /api/v1/tasks or the dataset see it grow.
 */
export function createProgressReporter(db: Db, ref: TaskRef, stage: keyof typeof STAGE_RANGES, message: string) {
  const [low, high] = STAGE_RANGES[stage];
  let lastWrite = 0;
  return async (done: number, total: number, force = false): Promise<void> => {
    const now = Date.now();
    if (!force && now - lastWrite < 1000) return;
    lastWrite = now;
    const percent = Math.floor(low + ((high - low) * (total === 0 ? 1 : done / total)));
    await reportTaskProgress(db, ref, { percent, message: `${message} (${done}/${total})`, phase: stage });
  };
}
