import { randomUUID } from 'node:crypto';
import { clearKnnEdges, forEachKnnChunk, storedKnnChunks, writeKnnChunk } from '../db/repositories/knnEdges';
import { labelledMedia } from '../db/repositories/labelQuality';
import { updateTaskProgress } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import { addKnnHits, emptyKnnGraph, encodeKnnHits, neighboursIn } from '../lib/clustering/knnGraph';
import { LABEL_QUALITY } from '../lib/quality/labelQuality';
import { imageCollection } from '../lib/vectors/vectorStore';
import type { KnnChunk, LabelCheckInput, LabelCheckPlan, LabelCheckStep } from '../workflows/contracts';
import { chunksOf } from './knnGraphSearch';
import type { LabelQualitySummary } from './labelQuality';
import { fieldsOf, judge, loadLabelled, neighboursAmong, summaryOf, type LabelCheckDeps, type Labelled } from './labelQualityCheck';
import type { Liveness } from './taskLiveness';
import { createProgressReporter } from './taskProgress';
import { forEachNeighbourBatch } from './vectorNeighbours';

/**
 * The label-quality check spread over workers (docs/decisions.md "Label quality spread over workers"): `planChunks`
 * splits the labelled images into chunks, `checkChunk` (any worker, any number at once) stores one chunk's neighbours
 * in label_edges, and `aggregate` scores them all and writes the results (services/labelQualityCheck.ts judges).
 */
export function createLabelQualityChunks(deps: LabelCheckDeps & { chunks: { size: number; concurrency: number } }) {
  const { db, vectors } = deps;
  // Every chunk maps hits to places among all the labelled images: loaded once per check and worker.
  let cached: { checkId: string; labelled: Promise<Labelled> } | undefined;
  const labelledOf = (step: LabelCheckStep) => {
    if (cached?.checkId !== step.checkId) cached = { checkId: step.checkId, labelled: loadLabelled(db, step.versionId, step.fields) };
    const loading = cached.labelled;
    loading.catch(() => (cached = undefined));
    return loading;
  };

  return {
    /** Chunks of the head version's labelled images (by ordinal), its stored neighbours forgotten; null when there is nothing to check. */
    async planChunks(input: LabelCheckInput): Promise<LabelCheckPlan | null> {
      const fields = await fieldsOf(db, input.datasetId, input.fields);
      if (!fields) return null;
      if (input.stage === 'check_labels') {
        await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Finding neighbours', progressPercentage: 0 });
      }
      const version = await headVersion(db, input.datasetId);
      const count = (await labelledMedia(db, version.id, fields)).length;
      await clearKnnEdges(db, version.id, 'label_edges');
      return {
        taskId: input.taskId,
        datasetId: input.datasetId,
        versionId: version.id,
        collection: imageCollection(version.vector_space_id),
        checkId: randomUUID(),
        fields,
        stage: input.stage,
        chunks: chunksOf(count, deps.chunks.size),
        concurrency: deps.chunks.concurrency,
      };
    },

    /** Searches the nearest labelled images of a chunk's labelled images and stores them; a repeat overwrites. */
    async checkChunk(live: Liveness, step: LabelCheckStep & { chunk: KnnChunk }): Promise<{ searched: number; hits: number }> {
      const labelled = await labelledOf(step);
      const ids = labelled.media.slice(step.chunk.start, step.chunk.end).map((row) => row.id);
      const sources: number[] = [];
      const targets: number[] = [];
      const similarities: number[] = [];
      await forEachNeighbourBatch(live, vectors, step.collection, ids, LABEL_QUALITY.neighbours + 1, async (start, hits) => {
        hits.forEach((found, b) => {
          const source = step.chunk.start + start + b;
          for (const neighbour of neighboursAmong(labelled, source, found)) {
            sources.push(source);
            targets.push(neighbour.index);
            similarities.push(neighbour.similarity);
          }
        });
      });
      await writeKnnChunk(db, step.versionId, step.chunk.ordinal, encodeKnnHits(sources, targets, similarities), 'label_edges');
      const report = createProgressReporter(db, step, step.stage, 'Checking labels', { from: 0, to: 0.9 });
      await report(await storedKnnChunks(db, step.versionId, 'label_edges'), step.chunks, true);
      return { searched: ids.length, hits: sources.length };
    },

    /** Scores every labelled image from the stored neighbours and writes the issues and the report in one transaction. */
    async aggregate(step: LabelCheckStep): Promise<LabelQualitySummary> {
      const { media } = await loadLabelled(db, step.versionId, step.fields);
      const graph = emptyKnnGraph(media.length, LABEL_QUALITY.neighbours + 1);
      await forEachKnnChunk(db, step.versionId, step.chunks, (hits) => addKnnHits(graph, hits), 'label_edges');
      const summary = await judge(
        db,
        step.versionId,
        media,
        media.map((_, i) => neighboursIn(graph, i)),
        step.fields,
      );
      await createProgressReporter(db, step, step.stage, 'Checking labels')(1, 1, true);
      return summaryOf(summary);
    },
  };
}
