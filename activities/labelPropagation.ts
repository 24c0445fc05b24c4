import type { Db } from '../db/connection';
import { indexItems } from '../db/repositories/media';
import { selectedMedia } from '../db/repositories/selection';
import { updateTaskProgress } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { completeLabelPropagation, writePropagatedLabel, type PropagationResult } from '../services/labels';
import { TASK_TYPE_REGISTRY, type Ending } from '../services/taskTypes';
import type { LabelPropagationInput } from '../workflows/contracts';
import { createProgressReporter } from './progress';
import { forEachNeighbourBatch } from './vectorNeighbours';
import { heartbeating } from './liveness';

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
      const seeds: string[] = (await selectedMedia(db, version.id, input.selection)).map((row: { id: string }) => row.id);
      const similarities = new Map<string, number>();
      if (input.maxNeighbours > 0) {
        const collection = imageCollection(version.vector_space_id);
        const embedded = new Set((await indexItems(db, version.id)).filter((item) => item.embedded).map((item) => item.id));
        const isSeed = new Set(seeds);
        const queries = seeds.filter((id) => embedded.has(id));
        // The collection is shared by every version of the lineage: ask for enough hits that media of
        // other versions cannot crowd out this version's nearest.
        const others = Math.max(0, (await vectors.count(collection)) - embedded.size);
        const k = input.maxNeighbours + 1 + others;
        const report = createProgressReporter(db, input, 'propagate', 'Finding neighbours');
        await forEachNeighbourBatch(vectors, collection, queries, k, async (start, hits) => {
          for (const [offset, found] of hits.entries()) {
            const seed = queries[start + offset];
            const nearest = found.filter((hit) => hit.id !== seed && embedded.has(hit.id)).slice(0, input.maxNeighbours);
            for (const hit of nearest) {
              const similarity = 1 - hit.distance;
              if (similarity < input.minSimilarity || isSeed.has(hit.id)) continue;
              if (similarity > (similarities.get(hit.id) ?? -1)) similarities.set(hit.id, similarity);
            }
          }
          await report(start + hits.length, queries.length);
        });
      }
      await writePropagatedLabel(db, { versionId: version.id, taskId: input.taskId }, input.label, seeds, similarities);
      return { seeds: seeds.length, propagated: similarities.size };
    },

    completeLabelPropagation: (input: Release & PropagationResult & { label: string }) => completeLabelPropagation(db, input),

    /** The task FAILED or ABORTED; nothing was labelled (the labels are written in one transaction at the end). */
    async failLabelPropagation(input: Release & Ending): Promise<void> {
      await TASK_TYPE_REGISTRY.LABEL_PROPAGATION.endUnfinished(db, input, input);
    },
  });
}
