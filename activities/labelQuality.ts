import type { Db } from '../db/connection';
import type { VectorStore } from '../lib/vectors/vectorStore';
import { completeLabelQuality, type LabelQualitySummary } from '../services/labelQuality';
import { checkLabelQuality, recheckLabelQuality } from '../services/labelQualityCheck';
import { createLabelQualityChunks } from '../services/labelQualityChunks';
import type { TaskRef } from '../services/taskProgress';
import type { KnnChunk, LabelCheckInput, LabelCheckStep, LabelQualityInput } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

type Release = Pick<LabelQualityInput, 'taskId' | 'datasetId' | 'previousStatus'>;

/**
 * LABEL_QUALITY: thin adapters over services/labelQualityChunks.ts (the check spread over workers:
 * planLabelChunks, checkLabelChunk, aggregateLabelQuality), services/labelQualityCheck.ts (the check in one step,
 * for workflows that started before the fan-out) and services/labelQuality.ts (the task's end).
 */
export function createLabelQualityActivities(deps: { db: Db; vectors: VectorStore; chunks: { size: number; concurrency: number } }) {
  const chunks = createLabelQualityChunks(deps);
  return heartbeating({
    checkLabelQuality: (input: LabelQualityInput) => checkLabelQuality(deps, activityLiveness(), input),
    recheckLabelQuality: (ref: TaskRef) => recheckLabelQuality(deps, activityLiveness(), ref),
    planLabelChunks: (input: LabelCheckInput) => chunks.planChunks(input),
    checkLabelChunk: (step: LabelCheckStep & { chunk: KnnChunk }) => chunks.checkChunk(activityLiveness(), step),
    aggregateLabelQuality: (step: LabelCheckStep) => chunks.aggregate(step),
    completeLabelQuality: (input: Release & LabelQualitySummary) => completeLabelQuality(deps.db, input),
  });
}
