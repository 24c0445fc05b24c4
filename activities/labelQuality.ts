import type { Db } from '../db/connection';
import { labelledMedia, writeLabelQuality, type LabelIssueRow } from '../db/repositories/labelQuality';
import { updateTaskProgress } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import { checkLabels, LABEL_QUALITY, leakagePairs, summariseLabelQuality, type LabelQualityReport } from '../lib/quality/labelQuality';
import type { Neighbour } from '../lib/quality/neighbourScores';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { completeLabelQuality, type LabelQualitySummary } from '../services/labelQuality';
import { TASK_TYPE_REGISTRY, type Ending } from '../services/taskTypes';
import type { LabelQualityInput } from '../workflows/contracts';
import { createProgressReporter, type TaskRef } from './progress';
import { vectorNeighbours } from './vectorNeighbours';
import { heartbeating } from './liveness';

type Release = Pick<LabelQualityInput, 'taskId' | 'datasetId' | 'previousStatus'>;

const summaryOf = (report: LabelQualityReport): LabelQualitySummary => ({
  labelled: report.n_labelled,
  flagged: report.n_flagged,
  leakagePairs: report.leakage.pairs,
});

/**
 * LABEL_QUALITY: reads the declared label (and split) field of the head version's embedded images,
 * finds each one's nearest neighbours in the vector index, and writes mislabel issues (confident
 * learning over the neighbours' labels), leakage issues (near-duplicates in different splits) and
 * the version's report in one transaction. A reindex checks again with the fields the report names.
 */
export function createLabelQualityActivities(deps: { db: Db; vectors: VectorStore }) {
  const { db, vectors } = deps;

  async function check(ref: TaskRef, fields: { label: string; split: string | null }, stage: 'check_labels' | 'analyze'): Promise<LabelQualityReport> {
    const version = await headVersion(db, ref.datasetId);
    const media = await labelledMedia(db, version.id, fields);
    const indexOf = new Map(media.map((row, i) => [row.id, i]));
    const report = createProgressReporter(db, ref, stage, 'Checking labels');
    const hits = await vectorNeighbours(vectors, imageCollection(version.vector_space_id), media.map((row) => row.id), LABEL_QUALITY.neighbours + 1, (done) =>
      report(done, media.length),
    );
    // Hits of other versions sharing the collection, and the item itself, are not neighbours.
    const neighbours: Neighbour[][] = hits.map((found, i) =>
      found.flatMap((hit) => {
        const index = indexOf.get(hit.id);
        return index === undefined || index === i ? [] : [{ index, similarity: 1 - hit.distance }];
      }),
    );
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
    await writeLabelQuality(db, version.id, issues, summary);
    return summary;
  }

  return heartbeating({
    async checkLabelQuality(input: LabelQualityInput): Promise<LabelQualitySummary> {
      await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Finding neighbours', progressPercentage: 0 });
      return summaryOf(await check(input, { label: input.labelField, split: input.splitField }, 'check_labels'));
    },

    /** After a full index: the version's labels checked again with the fields its last check read (nothing when none was declared). */
    async recheckLabelQuality(ref: TaskRef): Promise<LabelQualitySummary | null> {
      const previous = (await headVersion(db, ref.datasetId)).label_quality;
      if (!previous) return null;
      return summaryOf(await check(ref, { label: previous.label_field, split: previous.split_field }, 'analyze'));
    },

    completeLabelQuality: (input: Release & LabelQualitySummary) => completeLabelQuality(db, input),

    /** The task FAILED or ABORTED; nothing was written (the results go in one transaction at the end). */
    async failLabelQuality(input: Release & Ending): Promise<void> {
      await TASK_TYPE_REGISTRY.LABEL_QUALITY.endUnfinished(db, input, input);
    },
  });
}
