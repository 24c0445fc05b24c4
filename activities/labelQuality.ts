import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import { transactionLabels } from '../db/repositories/ingestion';
import { clearKnnEdges, forEachKnnChunk, storedKnnChunks, writeKnnChunk } from '../db/repositories/knnEdges';
import { labelledMedia, writeLabelQuality, type LabelIssueRow, type LabelledMediaRow } from '../db/repositories/labelQuality';
import { updateTaskProgress } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import { addKnnHits, emptyKnnGraph, encodeKnnHits, neighboursIn } from '../lib/clustering/knnGraph';
import { checkLabels, LABEL_QUALITY, leakagePairs, summariseLabelQuality, type LabelQualityReport } from '../lib/quality/labelQuality';
import type { Neighbour } from '../lib/quality/neighbourScores';
import type { VectorHit } from '../lib/vectors/vectorStore';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { completeLabelQuality, type LabelQualitySummary } from '../services/labelQuality';
import type { KnnChunk, LabelCheckInput, LabelCheckPlan, LabelCheckStep, LabelQualityInput } from '../workflows/contracts';
import { createProgressReporter, type TaskRef } from '../services/taskProgress';
import { forEachNeighbourBatch, vectorNeighbours } from '../services/vectorNeighbours';
import { activityLiveness, heartbeating } from './liveness';

type Release = Pick<LabelQualityInput, 'taskId' | 'datasetId' | 'previousStatus'>;
type LabelFields = LabelCheckStep['fields'];

const summaryOf = (report: LabelQualityReport): LabelQualitySummary => ({
  labelled: report.n_labelled,
  flagged: report.n_flagged,
  leakagePairs: report.leakage.pairs,
});

/** The labelled images (by id) with each one's place among them, for mapping hits to places. */
interface Labelled {
  media: LabelledMediaRow[];
  indexOf: Map<string, number>;
}

async function loadLabelled(db: Db, versionId: string, fields: LabelFields): Promise<Labelled> {
  const media = await labelledMedia(db, versionId, fields);
  return { media, indexOf: new Map(media.map((row, i) => [row.id, i])) };
}

/** Hits of other versions sharing the collection, and the item itself, are not neighbours. */
function neighboursAmong(labelled: Labelled, item: number, found: VectorHit[]): Neighbour[] {
  return found.flatMap((hit) => {
    const index = labelled.indexOf.get(hit.id);
    return index === undefined || index === item ? [] : [{ index, similarity: 1 - hit.distance }];
  });
}

/**
 * LABEL_QUALITY: reads the declared label (and split) field of the head version's embedded images,
 * finds each one's nearest neighbours in the vector index, and writes mislabel issues (confident
 * learning over the neighbours' labels), leakage issues (near-duplicates in different splits) and
 * the version's report in one transaction. Spread over workers (docs/decisions.md "Label quality
 * spread over workers"): `planLabelChunks` splits the labelled images into chunks, `checkLabelChunk`
 * (any worker, any number at once) stores one chunk's neighbours in label_edges, and
 * `aggregateLabelQuality` scores them all and writes the results. `checkLabelQuality` and
 * `recheckLabelQuality` do it in one activity, for workflows that started before the fan-out.
 */
export function createLabelQualityActivities(deps: { db: Db; vectors: VectorStore; chunks: { size: number; concurrency: number } }) {
  const { db, vectors } = deps;
  // Every chunk maps hits to places among all the labelled images: loaded once per check and worker.
  let cached: { checkId: string; labelled: Promise<Labelled> } | undefined;
  const labelledOf = (step: LabelCheckStep) => {
    if (cached?.checkId !== step.checkId) cached = { checkId: step.checkId, labelled: loadLabelled(db, step.versionId, step.fields) };
    const loading = cached.labelled;
    loading.catch(() => (cached = undefined));
    return loading;
  };

  /** Scores the labelled images from their neighbours and writes the issues and the report in one transaction. */
  async function judge(versionId: string, media: LabelledMediaRow[], neighbours: Neighbour[][], fields: LabelFields): Promise<LabelQualityReport> {
    const classes = [...new Set(media.flatMap((row) => (row.label === null ? [] : [row.label])))].sort();
    const classOf = new Map(classes.map((label, c) => [label, c]));
    const labels = media.map((row) => (row.label === null ? -1 : classOf.get(row.label)!));
    const splits = media.map((row) => row.split);
    const result = checkLabels(labels.map((label, i) => ({ label, neighbours: neighbours[i] })), classes.length);
    const leakage = fields.split === null ? [] : leakagePairs(splits.map((split, i) => ({ split, neighbours: neighbours[i] })));

    const issues: LabelIssueRow[] = [];
    result.verdicts.forEach((verdict, i) => {
      if (!verdict?.flagged) return;
      issues.push({
        media_id: media[i].id,
        issue_type: 'mislabel',
        confidence: verdict.score,
        details: { label: media[i].label, suggested_label: classes[verdict.suggested], score: verdict.score },
      });
    });
    // Each item of a leaking pair gets the issue once, naming its most similar duplicate in another split.
    const leaks = new Map<number, { other: number; similarity: number }>();
    for (const pair of leakage) {
      for (const [item, other] of [[pair.a, pair.b], [pair.b, pair.a]]) {
        if ((leaks.get(item)?.similarity ?? -1) < pair.similarity) leaks.set(item, { other, similarity: pair.similarity });
      }
    }
    for (const [item, { other, similarity }] of leaks) {
      issues.push({
        media_id: media[item].id,
        issue_type: 'leakage',
        confidence: similarity,
        details: { split: splits[item], duplicate_of: media[other].id, duplicate_split: splits[other], similarity },
      });
    }
    const summary = summariseLabelQuality({ fields, classes, labels, splits, check: result, leakage, checkedAt: new Date() });
    await writeLabelQuality(db, versionId, issues, summary);
    return summary;
  }

  /** The whole check in one activity. */
  async function check(ref: TaskRef, fields: LabelFields, stage: LabelCheckInput['stage']): Promise<LabelQualityReport> {
    const version = await headVersion(db, ref.datasetId);
    const labelled = await loadLabelled(db, version.id, fields);
    const report = createProgressReporter(db, ref, stage, 'Checking labels');
    const hits = await vectorNeighbours(activityLiveness(), vectors, imageCollection(version.vector_space_id), labelled.media.map((row) => row.id), LABEL_QUALITY.neighbours + 1, (done) =>
      report(done, labelled.media.length),
    );
    return judge(
      version.id,
      labelled.media,
      hits.map((found, i) => neighboursAmong(labelled, i, found)),
      fields,
    );
  }

  /** The fields a check reads; null when there is nothing to check (no declaration, no labels from folders). */
  async function fieldsOf(datasetId: string, source: LabelCheckInput['fields']): Promise<LabelFields | null> {
    if ('label' in source) return source;
    const previous = (await headVersion(db, datasetId)).label_quality;
    if ('transactionId' in source) {
      // A batch's labels go in the declared label field (or declare it): its split field, else the declared one, stays.
      const labels = await transactionLabels(db, source.transactionId);
      if (labels === null) return null;
      return { label: labels.labelField, split: labels.splitField ?? (previous?.label_field === labels.labelField ? previous.split_field : null) };
    }
    return previous ? { label: previous.label_field, split: previous.split_field } : null;
  }

  return heartbeating({
    async checkLabelQuality(input: LabelQualityInput): Promise<LabelQualitySummary> {
      await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Finding neighbours', progressPercentage: 0 });
      return summaryOf(await check(input, { label: input.labelField, split: input.splitField }, 'check_labels'));
    },

    /** After a full index: the version's labels checked again with the fields its last check read (nothing when none was declared). */
    async recheckLabelQuality(ref: TaskRef): Promise<LabelQualitySummary | null> {
      const fields = await fieldsOf(ref.datasetId, { declared: true });
      return fields && summaryOf(await check(ref, fields, 'analyze'));
    },

    /** Chunks of the head version's labelled images (by ordinal), its stored neighbours forgotten; null when there is nothing to check. */
    async planLabelChunks(input: LabelCheckInput): Promise<LabelCheckPlan | null> {
      const fields = await fieldsOf(input.datasetId, input.fields);
      if (!fields) return null;
      if (input.stage === 'check_labels') {
        await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Finding neighbours', progressPercentage: 0 });
      }
      const version = await headVersion(db, input.datasetId);
      const count = (await labelledMedia(db, version.id, fields)).length;
      await clearKnnEdges(db, version.id, 'label_edges');
      const chunks = Array.from({ length: Math.ceil(count / deps.chunks.size) }, (_, ordinal) => ({
        ordinal,
        start: ordinal * deps.chunks.size,
        end: Math.min(count, (ordinal + 1) * deps.chunks.size),
      }));
      return {
        taskId: input.taskId,
        datasetId: input.datasetId,
        versionId: version.id,
        collection: imageCollection(version.vector_space_id),
        checkId: randomUUID(),
        fields,
        stage: input.stage,
        chunks,
        concurrency: deps.chunks.concurrency,
      };
    },

    /** Searches the nearest labelled images of a chunk's labelled images and stores them; a repeat overwrites. */
    async checkLabelChunk(step: LabelCheckStep & { chunk: KnnChunk }): Promise<{ searched: number; hits: number }> {
      const labelled = await labelledOf(step);
      const ids = labelled.media.slice(step.chunk.start, step.chunk.end).map((row) => row.id);
      const sources: number[] = [];
      const targets: number[] = [];
      const similarities: number[] = [];
      await forEachNeighbourBatch(activityLiveness(), vectors, step.collection, ids, LABEL_QUALITY.neighbours + 1, async (start, hits) => {
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
    async aggregateLabelQuality(step: LabelCheckStep): Promise<LabelQualitySummary> {
      const { media } = await loadLabelled(db, step.versionId, step.fields);
      const graph = emptyKnnGraph(media.length, LABEL_QUALITY.neighbours + 1);
      await forEachKnnChunk(db, step.versionId, step.chunks, (hits) => addKnnHits(graph, hits), 'label_edges');
      const summary = await judge(
        step.versionId,
        media,
        media.map((_, i) => neighboursIn(graph, i)),
        step.fields,
      );
      await createProgressReporter(db, step, step.stage, 'Checking labels')(1, 1, true);
      return summaryOf(summary);
    },

    completeLabelQuality: (input: Release & LabelQualitySummary) => completeLabelQuality(db, input),
  });
}
