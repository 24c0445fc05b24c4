import type { Db } from '../db/connection';
import { reportTaskProgress } from '../db/repositories/tasks';
import { STAGE_RANGES, type TaskStage } from '../lib/tasks';
import type { ChunkStep } from '../workflows/contracts';

export interface TaskRef {
  taskId: string;
  datasetId: string;
}

/** Reports `done` of `total`; throttled to once a second unless `force`. */
export type ProgressReporter = (done: number, total: number, force?: boolean) => Promise<void>;

/**
 * Reports a stage's progress (its share is the task module's, lib/tasks) to the task and the dataset, at most once a second, so clients polling
 * /api/v1/tasks or the dataset see it grow. `share` is the part of the stage this reporter covers
 * (a chunk's half of the indexing stage); by default the whole stage.
 */
export function createProgressReporter(
  db: Db,
  ref: TaskRef,
  stage: TaskStage,
  message: string,
  share: { from: number; to: number } = { from: 0, to: 1 },
): ProgressReporter {
  const [low, high] = STAGE_RANGES[stage];
  let lastWrite = 0;
  return async (done: number, total: number, force = false): Promise<void> => {
    const now = Date.now();
    if (!force && now - lastWrite < 1000) return;
    lastWrite = now;
    const fraction = share.from + (share.to - share.from) * (total === 0 ? 1 : done / total);
    const percent = Math.floor(low + (high - low) * fraction);
    await reportTaskProgress(db, ref, { percent, message: `${message} (${done}/${total})`, phase: stage });
  };
}

/**
 * A reporter for part of a chunk's share of `stage` (`part`: fractions of that share), e.g. its decode as the first
 * half of the indexing stage's share and its embedding as the second.
 */
export function createChunkProgressReporter(
  db: Db,
  step: ChunkStep,
  stage: TaskStage,
  part: { from: number; to: number },
  message: string,
): ProgressReporter {
  const share = (fraction: number) => (step.chunk.ordinal + fraction) / step.chunks;
  const chunkMessage = `${message}, chunk ${step.chunk.ordinal + 1} of ${step.chunks}`;
  return createProgressReporter(db, step, stage, chunkMessage, { from: share(part.from), to: share(part.to) });
}
