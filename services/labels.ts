import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { applyLabel } from '../db/repositories/labels';
import { countClassChanges, labelFieldsOfVersion, writeLabelList } from '../db/repositories/groundTruth';
import { taskCreator, updateTaskProgress } from '../db/repositories/tasks';
import { transitionDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import { countSelectedMedia, selectedMedia, type MediaSelection } from '../db/repositories/selection';
import { indexItems } from '../db/repositories/media';
import { headVersion, type DatasetVersion } from '../db/repositories/versions';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { releaseTransition } from '../lib/datasetStates';
import { unprocessable } from '../lib/errors';
import type { LabelPropagationInput } from '../workflows/contracts';
import { claimDatasetFor, requireStatusFor } from './datasetStates';
import { requireCurrentMapLayout } from './map';
import { createTask, type TaskDeps } from './taskWorkflows';
import { unattended, type Liveness } from './taskLiveness';
import { createProgressReporter } from './taskProgress';
import { commitTaskEnd, completeTask } from './taskTypes';
import { forEachNeighbourBatch } from './vectorNeighbours';

export interface LabelRequest {
  label: string;
  selection: MediaSelection;
  minSimilarity: number;
  maxNeighbours: number;
}

/** Starts a LABEL_PROPAGATION task: the label on the selected media and on their near neighbours. */
export async function startLabelPropagation(deps: TaskDeps, dataset: DatasetRow, user: User, request: LabelRequest): Promise<string> {
  requireStatusFor(dataset, 'propagate_labels');
  await requireCurrentMapLayout(deps.db, dataset, request.selection.filters ?? []);
  const named = await countSelectedMedia(deps.db, dataset.head_version_id, request.selection);
  if (named === 0) throw unprocessable('The selection names no media of this dataset');
  let previousStatus = dataset.status_new;
  const neighbours = request.maxNeighbours > 0 ? ` and up to ${request.maxNeighbours} neighbours each at similarity ≥ ${request.minSimilarity}` : '';
  return createTask(
    deps,
    {
      taskType: 'LABEL_PROPAGATION',
      datasetId: dataset.id,
      user,
      statusMessage: `Queued: “${request.label}” on ${named} media${neighbours}`,
      input: (taskId): LabelPropagationInput => ({ taskId, datasetId: dataset.id, ...request, previousStatus }),
    },
    async (trx) => {
      previousStatus = await claimDatasetFor(trx, dataset, 'propagate_labels');
    },
    async (db) => {
      await transitionDatasetStatus(db, dataset.id, releaseTransition('propagate_labels', previousStatus));
    },
  );
}

/**
 * The seeds of a propagation (the selection, resolved against the version) and each of their `maxNeighbours`
 * nearest media of the version at a cosine similarity of at least `minSimilarity`, with its best similarity to a
 * seed. One hop: neighbours of neighbours are not included.
 */
async function findPropagationTargets(
  deps: { db: Db; vectors: VectorStore },
  live: Liveness,
  version: Pick<DatasetVersion, 'id' | 'vector_space_id'>,
  request: Pick<LabelRequest, 'selection' | 'minSimilarity' | 'maxNeighbours'>,
  onProgress: (done: number, total: number) => Promise<void> = async () => undefined,
): Promise<{ seeds: string[]; similarities: Map<string, number> }> {
  const seeds: string[] = (await selectedMedia(deps.db, version.id, request.selection)).map((row: { id: string }) => row.id);
  const similarities = new Map<string, number>();
  if (request.maxNeighbours === 0) return { seeds, similarities };
  const collection = imageCollection(version.vector_space_id);
  const embedded = new Set((await indexItems(deps.db, version.id)).filter((item) => item.embedded).map((item) => item.id));
  const isSeed = new Set(seeds);
  const queries = seeds.filter((id) => embedded.has(id));
  // The collection is shared by every version of the lineage: ask for enough hits that media of
  // other versions cannot crowd out this version's nearest.
  const others = Math.max(0, (await deps.vectors.count(collection)) - embedded.size);
  const k = request.maxNeighbours + 1 + others;
  await forEachNeighbourBatch(live, deps.vectors, collection, queries, k, async (start, hits) => {
    for (const [offset, found] of hits.entries()) {
      const seed = queries[start + offset];
      const nearest = found.filter((hit) => hit.id !== seed && embedded.has(hit.id)).slice(0, request.maxNeighbours);
      for (const hit of nearest) {
        const similarity = 1 - hit.distance;
        if (similarity < request.minSimilarity || isSeed.has(hit.id)) continue;
        if (similarity > (similarities.get(hit.id) ?? -1)) similarities.set(hit.id, similarity);
      }
    }
    await onProgress(start + hits.length, queries.length);
  });
  return { seeds, similarities };
}

/** The similarities a preview counts neighbours at, besides the one asked for. */
const PREVIEW_SIMILARITIES = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
/** Seeds a preview searches from at most (it answers within the request). */
export const MAX_PREVIEW_SEEDS = 1_000;

export interface PropagationPreview {
  seeds: number;
  /** Neighbours the propagation would label at the similarity asked for. */
  neighbours: number;
  /** Media whose class would change (seeds and neighbours without the class now); null without a label field. */
  changes: number | null;
  by_similarity: Array<{ min_similarity: number; neighbours: number }>;
}

/** What a propagation would label, before it runs: counted at the similarity asked for and at a few others. */
export async function previewLabelPropagation(deps: { db: Db; vectors: VectorStore }, dataset: DatasetRow, request: LabelRequest): Promise<PropagationPreview> {
  requireStatusFor(dataset, 'propagate_labels');
  await requireCurrentMapLayout(deps.db, dataset, request.selection.filters ?? []);
  const named = await countSelectedMedia(deps.db, dataset.head_version_id, request.selection);
  if (named === 0) throw unprocessable('The selection names no media of this dataset');
  if (named > MAX_PREVIEW_SEEDS) throw unprocessable(`A preview searches from at most ${MAX_PREVIEW_SEEDS} selected media; this selection names ${named}`);
  const version = await headVersion(deps.db, dataset.id);
  const lowest = Math.min(request.minSimilarity, ...PREVIEW_SIMILARITIES);
  const { seeds, similarities } = await findPropagationTargets(deps, unattended, version, { ...request, minSimilarity: lowest });
  const neighboursAt = (minimum: number) => [...similarities.values()].filter((similarity) => similarity >= minimum).length;
  const targets = [...seeds, ...[...similarities].filter(([, similarity]) => similarity >= request.minSimilarity).map(([id]) => id)];
  return {
    seeds: seeds.length,
    neighbours: neighboursAt(request.minSimilarity),
    changes: await countClassChanges(deps.db, dataset.head_version_id, targets, request.label),
    by_similarity: PREVIEW_SIMILARITIES.map((minimum) => ({ min_similarity: minimum, neighbours: neighboursAt(minimum) })),
  };
}

export interface PropagationResult {
  seeds: number;
  propagated: number;
}

/**
 * Where the dataset has a label field (the user's own labels), the label becomes the class of the seeds and the
 * neighbours found, as one undoable action of the task's user. Otherwise it goes on them as a label beside the
 * models' (source `user` on the seeds, `propagated` on the neighbours at their best similarity to a seed). One transaction.
 */
async function writePropagatedLabel(
  db: Db,
  target: { versionId: string; taskId: string },
  label: string,
  seeds: string[],
  similarities: Map<string, number>,
): Promise<void> {
  const { versionId } = target;
  const { labelField } = await labelFieldsOfVersion(db, versionId);
  if (labelField !== null) {
    const userId = await taskCreator(db, target.taskId);
    const relabels = [...seeds, ...similarities.keys()].map((mediaId) => ({ mediaId, label }));
    await db.transaction((trx) => writeLabelList(trx, { versionId, field: labelField, action: 'propagate', userId }, relabels));
    return;
  }
  await db.transaction(async (trx) => {
    await applyLabel(trx, versionId, label, 'user', seeds.map((id) => ({ mediaId: id, confidence: 1 })));
    await applyLabel(trx, versionId, label, 'propagated', [...similarities].map(([mediaId, confidence]) => ({ mediaId, confidence })));
  });
}

/**
 * LABEL_PROPAGATION's work: gives the seeds the label (source `user`) and each of their `maxNeighbours` nearest media
 * of the version at a cosine similarity of at least `minSimilarity` the label too (source `propagated`, confidence
 * the best similarity to a seed). One hop: neighbours of neighbours are not labelled. A label a media item already
 * has from elsewhere is kept as it is.
 */
export async function propagateLabel(deps: { db: Db; vectors: VectorStore }, live: Liveness, input: LabelPropagationInput): Promise<PropagationResult> {
  const { db } = deps;
  await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Finding neighbours', progressPercentage: 0 });
  const version = await headVersion(db, input.datasetId);
  const report = createProgressReporter(db, input, 'propagate', 'Finding neighbours');
  const { seeds, similarities } = await findPropagationTargets(deps, live, version, input, report);
  await writePropagatedLabel(db, { versionId: version.id, taskId: input.taskId }, input.label, seeds, similarities);
  return { seeds: seeds.length, propagated: similarities.size };
}

/** The task COMPLETED with what was labelled; the dataset back to the status it was claimed from. */
export async function completeLabelPropagation(
  db: Db,
  input: Pick<LabelPropagationInput, 'taskId' | 'datasetId' | 'previousStatus'> & PropagationResult & { label: string },
): Promise<void> {
  const message = `Labelled ${input.seeds} selected media “${input.label}” and propagated it to ${input.propagated} neighbours`;
  await commitTaskEnd(db, input.datasetId, (trx) => completeTask(trx, input, releaseTransition('propagate_labels', input.previousStatus), message));
}
