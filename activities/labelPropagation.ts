import type { Db } from '../db/connection';
import { updateTaskProgress } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import type { VectorStore } from '../lib/vectors/vectorStore';
import { completeLabelPropagation, findPropagationTargets, writePropagatedLabel, type NeighbourBatches, type PropagationResult } from '../services/labels';
import type { LabelPropagationInput } from '../workflows/contracts';
import { createProgressReporter } from '../services/taskProgress';
import { forEachNeighbourBatch } from '../services/vectorNeighbours';
import { activityLiveness, heartbeating } from './liveness';

type Release = Pick<LabelPropagationInput, 'taskId' | 'datasetId' | 'previousStatus'>;

/**
 * LABEL_PROPAGATION: gives the seeds the label (source `user`) and each of their `maxNeighbours`
 * nearest media of the version at a cosine similarity of at least `minSimilarity` the label too
 * (source `propagated`, confidence the best similarity to a seed). One hop: neighbours of neighbours
 * are not labelled. A label a media item already has from elsewhere is kept as it is.
 */
export function createLabelPropagationActivities(deps: { db: Db; vectors: VectorStore }) {
  const { db, vectors } = deps;
  return heartbeating({
    async propagateLabel(input: LabelPropagationInput): Promise<PropagationResult> {
      await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Finding neighbours', progressPercentage: 0 });
      const version = await headVersion(db, input.datasetId);
      const report = createProgressReporter(db, input, 'propagate', 'Finding neighbours');
      const batches: NeighbourBatches = (collection, ids, k, onBatch) => forEachNeighbourBatch(activityLiveness(), vectors, collection, ids, k, onBatch);
      const { seeds, similarities } = await findPropagationTargets({ db, vectors, batches }, version, input, report);
      await writePropagatedLabel(db, { versionId: version.id, taskId: input.taskId }, input.label, seeds, similarities);
      return { seeds: seeds.length, propagated: similarities.size };
    },

    completeLabelPropagation: (input: Release & PropagationResult & { label: string }) => completeLabelPropagation(db, input),
  });
}
