import type { Db } from '../db/connection';
import type { VectorStore } from '../lib/vectors/vectorStore';
import { completeLabelPropagation, propagateLabel, type PropagationResult } from '../services/labels';
import type { LabelPropagationInput } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

type Release = Pick<LabelPropagationInput, 'taskId' | 'datasetId' | 'previousStatus'>;

/** LABEL_PROPAGATION: thin adapters over services/labels.ts (the label on the seeds and their near neighbours, the task's end). */
export function createLabelPropagationActivities(deps: { db: Db; vectors: VectorStore }) {
  return heartbeating({
    propagateLabel: (input: LabelPropagationInput) => propagateLabel(deps, activityLiveness(), input),
    completeLabelPropagation: (input: Release & PropagationResult & { label: string }) => completeLabelPropagation(deps.db, input),
  });
}
