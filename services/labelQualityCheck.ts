import type { Db } from '../db/connection';
import { transactionLabels } from '../db/repositories/ingestion';
import { labelledMedia, videoSplits, writeLabelQuality, type LabelIssueRow, type LabelledMediaRow } from '../db/repositories/labelQuality';
import { updateTaskProgress } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import { checkLabels, LABEL_QUALITY, leakagePairs, summariseLabelQuality, type LabelQualityReport, type LeakagePair } from '../lib/quality/labelQuality';
import type { Neighbour } from '../lib/quality/neighbourScores';
import { imageCollection, type VectorHit, type VectorStore } from '../lib/vectors/vectorStore';
import type { LabelCheckInput, LabelCheckStep, LabelQualityInput } from '../workflows/contracts';
import type { LabelQualitySummary } from './labelQuality';
import type { Liveness } from './taskLiveness';
import { createProgressReporter, type TaskRef } from './taskProgress';
import { vectorNeighbours } from './vectorNeighbours';
import { videoPairs } from './videoDuplicates';

export interface LabelCheckDeps {
  db: Db;
  vectors: VectorStore;
}

export type LabelFields = LabelCheckStep['fields'];

export const summaryOf = (report: LabelQualityReport): LabelQualitySummary => ({
  labelled: report.n_labelled,
  flagged: report.n_flagged,
  leakagePairs: report.leakage.pairs,
});

/** The labelled images (by id) with each one's place among them, for mapping hits to places. */
export interface Labelled {
  media: LabelledMediaRow[];
  indexOf: Map<string, number>;
}

export async function loadLabelled(db: Db, versionId: string, fields: LabelFields): Promise<Labelled> {
  const media = await labelledMedia(db, versionId, fields);
  return { media, indexOf: new Map(media.map((row, i) => [row.id, i])) };
}

/** Hits of other versions sharing the collection, and the item itself, are not neighbours. */
export function neighboursAmong(labelled: Labelled, item: number, found: VectorHit[]): Neighbour[] {
  return found.flatMap((hit) => {
    const index = labelled.indexOf.get(hit.id);
    return index === undefined || index === item ? [] : [{ index, similarity: 1 - hit.distance }];
  });
}

/**
 * LABEL_QUALITY: reads the declared label (and split) field of the head version's embedded images, finds each one's
 * nearest neighbours in the vector index, and writes mislabel issues (confident learning over the neighbours'
 * labels), leakage issues (near-duplicates in different splits) and the version's report in one transaction. Here in
 * one step (checkLabelQuality, recheckLabelQuality: for workflows that started before the fan-out); spread over
 * workers in services/labelQualityChunks.ts.
 */
export async function checkLabelQuality(deps: LabelCheckDeps, live: Liveness, input: LabelQualityInput): Promise<LabelQualitySummary> {
  await updateTaskProgress(deps.db, input.taskId, { status: 'RUNNING', statusMessage: 'Finding neighbours', progressPercentage: 0 });
  return summaryOf(await check(deps, live, input, { label: input.labelField, split: input.splitField }, 'check_labels'));
}

/** After a full index: the version's labels checked again with the fields its last check read (nothing when none was declared). */
export async function recheckLabelQuality(deps: LabelCheckDeps, live: Liveness, ref: TaskRef): Promise<LabelQualitySummary | null> {
  const fields = await fieldsOf(deps.db, ref.datasetId, { declared: true });
  return fields && summaryOf(await check(deps, live, ref, fields, 'analyze'));
}

/** The whole check in one step. */
async function check(deps: LabelCheckDeps, live: Liveness, ref: TaskRef, fields: LabelFields, stage: LabelCheckInput['stage']): Promise<LabelQualityReport> {
  const { db, vectors } = deps;
  const version = await headVersion(db, ref.datasetId);
  const labelled = await loadLabelled(db, version.id, fields);
  const report = createProgressReporter(db, ref, stage, 'Checking labels');
  const hits = await vectorNeighbours(live, vectors, imageCollection(version.vector_space_id), labelled.media.map((row) => row.id), LABEL_QUALITY.neighbours + 1, (done) =>
    report(done, labelled.media.length),
  );
  return judge(
    db,
    version.id,
    labelled.media,
    hits.map((found, i) => neighboursAmong(labelled, i, found)),
    fields,
  );
}


/** Scores the labelled images from their neighbours and writes the issues and the report in one transaction. */
export async function judge(db: Db, versionId: string, media: LabelledMediaRow[], neighbours: Neighbour[][], fields: LabelFields): Promise<LabelQualityReport> {
  const classes = [...new Set(media.flatMap((row) => (row.label === null ? [] : [row.label])))].sort();
  const classOf = new Map(classes.map((label, c) => [label, c]));
  const labels = media.map((row) => (row.label === null ? -1 : classOf.get(row.label)!));
  const splits = media.map((row) => row.split);
  const result = checkLabels(labels.map((label, i) => ({ label, neighbours: neighbours[i] })), classes.length);
  const leakage = fields.split === null ? [] : leakagePairs(splits.map((split, i) => ({ split, neighbours: neighbours[i] })));
  // Copies of one video clip in different splits leak too; they follow the images, as places after them.
  const clips = fields.split === null ? { ids: [], splits: [], leakage: [] } : await clipLeakage(db, versionId, fields.split, media.length);
  const ids = [...media.map((row) => row.id), ...clips.ids];
  const allSplits = [...splits, ...clips.splits];
  const allLeakage = [...leakage, ...clips.leakage];

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
  for (const pair of allLeakage) {
    for (const [item, other] of [[pair.a, pair.b], [pair.b, pair.a]]) {
      if ((leaks.get(item)?.similarity ?? -1) < pair.similarity) leaks.set(item, { other, similarity: pair.similarity });
    }
  }
  for (const [item, { other, similarity }] of leaks) {
    issues.push({
      media_id: ids[item],
      issue_type: 'leakage',
      confidence: similarity,
      details: { split: allSplits[item], duplicate_of: ids[other], duplicate_split: allSplits[other], similarity },
    });
  }
  const summary = summariseLabelQuality({ fields, classes, labels, splits: allSplits, check: result, leakage: allLeakage, checkedAt: new Date() });
  await writeLabelQuality(db, versionId, issues, summary);
  return summary;
}


/**
 * Pairs of videos that are copies of one clip (services/videoDuplicates.ts) in different splits, numbered from
 * `first` on: the videos' ids and splits by that numbering, and the pairs.
 */
async function clipLeakage(db: Db, versionId: string, splitField: string, first: number): Promise<{ ids: string[]; splits: string[]; leakage: LeakagePair[] }> {
  const splitOf = await videoSplits(db, versionId, splitField);
  if (splitOf.size < 2) return { ids: [], splits: [], leakage: [] };
  const pairs = await videoPairs(db, versionId, { similarity: LABEL_QUALITY.leakageSimilarity, tiers: ['exact', 'near_identical'] });
  const ids = [...splitOf.keys()];
  const placeOf = new Map(ids.map((id, i) => [id, first + i]));
  const leakage = pairs
    .filter((pair) => splitOf.has(pair.mediaId) && splitOf.has(pair.duplicateOf) && splitOf.get(pair.mediaId) !== splitOf.get(pair.duplicateOf))
    .map((pair) => ({ a: placeOf.get(pair.mediaId)!, b: placeOf.get(pair.duplicateOf)!, similarity: pair.similarity }));
  return { ids, splits: ids.map((id) => splitOf.get(id)!), leakage };
}

/** The fields a check reads; null when there is nothing to check (no declaration, no labels from folders). */
export async function fieldsOf(db: Db, datasetId: string, source: LabelCheckInput['fields']): Promise<LabelFields | null> {
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
