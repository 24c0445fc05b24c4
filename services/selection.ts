import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { transitionDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import { labelFieldsOfVersion } from '../db/repositories/groundTruth';
import { countSelectedMedia } from '../db/repositories/selection';
import { headTagNamed, selectionPicks, selectionPool, writeSelectionTag, type PoolRow } from '../db/repositories/selectionPicks';
import { tagExists } from '../db/repositories/tags';
import { headVersion, type DatasetVersion } from '../db/repositories/versions';
import { releaseTransition } from '../lib/datasetStates';
import { conflict, notFound, unprocessable } from '../lib/errors';
import { chooseItems, DIRECT_ITEMS, sketchVectors, type SelectionRequest } from '../lib/selection/chooseItems';
import { kMeans, type SelectionPool, type SelectionStrategy } from '../lib/selection/selectItems';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import type { MediaFilter } from '../lib/vql/compileVql';
import type { SelectionInput } from '../workflows/contracts';
import { claimDatasetFor, requireStatusFor } from './datasetStates';
import { copiesLeftOut } from './duplicates';
import { requireCurrentMapLayout } from './map';
import { createTask, type TaskDeps } from './taskWorkflows';
import { heartbeatOrStop, type Liveness } from './taskLiveness';
import { createProgressReporter } from './taskProgress';
import { commitTaskEnd, completeTask } from './taskTypes';
import { storedVectors } from './vectorNeighbours';

export interface SelectionAsk {
  weights: Partial<Record<SelectionStrategy, number>>;
  /** How many to choose, or which share of the matches (0-1]. */
  size: { n: number } | { share: number };
  filters: MediaFilter[];
  tag: string;
  seed: number;
  balance: boolean;
}

/**
 * Starts a SELECTION task (issue 52): `size` of the images and frames `filters` match, chosen by the strategies'
 * weighted mix and written as a new tag. Refused, changing nothing, when the filters match fewer than asked or the tag exists.
 */
export async function startSelection(deps: TaskDeps, dataset: DatasetRow, user: User, ask: SelectionAsk): Promise<string> {
  requireStatusFor(dataset, 'select_items');
  await requireCurrentMapLayout(deps.db, dataset, ask.filters);
  const matches = await countSelectedMedia(deps.db, dataset.head_version_id, { filters: ask.filters });
  if (matches === 0) throw unprocessable('The filter matches no images or frames of this dataset');
  const count = 'n' in ask.size ? ask.size.n : Math.max(1, Math.round(ask.size.share * matches));
  if (count > matches) throw unprocessable(`n is ${count}, but the filter matches ${matches} images and frames`);
  if (await headTagNamed(deps.db, dataset.head_version_id, ask.tag)) throw conflict(`A tag named "${ask.tag}" already exists in this dataset`);
  let previousStatus = dataset.status_new;
  const mix = Object.entries(ask.weights)
    .map(([strategy, weight]) => `${strategy} ${weight}`)
    .join(', ');
  return createTask(
    deps,
    {
      taskType: 'SELECTION',
      datasetId: dataset.id,
      user,
      statusMessage: `Queued: ${count} of ${matches} media by ${mix} as tag “${ask.tag}”`,
      input: (taskId): SelectionInput => ({
        taskId,
        datasetId: dataset.id,
        weights: ask.weights,
        count,
        filters: ask.filters,
        tag: ask.tag,
        seed: ask.seed,
        balance: ask.balance,
        userId: user.id,
        previousStatus,
      }),
    },
    async (trx) => {
      previousStatus = await claimDatasetFor(trx, dataset, 'select_items');
    },
    async (db) => {
      await transitionDatasetStatus(db, dataset.id, releaseTransition('select_items', previousStatus));
    },
  );
}

/** Vectors read from the store at once. */
const READ_BATCH = 1_000;
/** Clusters the budget is balanced over when the dataset has no label field. */
const BALANCE_CLUSTERS = 10;

export interface SelectionResult {
  chosen: number;
  pool: number;
  leftOut: number;
}

/** The groups a balanced selection splits its budget over: the classes of the label field, else k-means clusters. */
function balanceOf(labels: readonly (string | null)[], pool: SelectionPool, seed: number): SelectionRequest['balance'] {
  if (labels.some((label) => label !== null)) {
    const names = [...new Set(labels.map((label) => label ?? '(no label)'))].sort();
    const at = new Map(names.map((name, i) => [name, i]));
    return { names, groupOf: Int32Array.from(labels, (label) => at.get(label ?? '(no label)')!) };
  }
  const clusters = Math.min(BALANCE_CLUSTERS, pool.vectors.length);
  return { names: Array.from({ length: clusters }, (_, c) => `cluster ${c + 1}`), groupOf: kMeans(pool, clusters, seed) };
}

/** The head version and its pool: the embedded images and frames the filters match, without the copies duplicates review would drop. */
export interface PoolOfSelection {
  version: DatasetVersion;
  pool: PoolRow[];
  leftOut: number;
}

export async function poolOfSelection(db: Db, input: Pick<SelectionInput, 'datasetId' | 'filters'>): Promise<PoolOfSelection> {
  const version = await headVersion(db, input.datasetId);
  const { labelField } = await labelFieldsOfVersion(db, version.id);
  const [rows, copies] = await Promise.all([selectionPool(db, version.id, input.filters, labelField), copiesLeftOut(db, version.id)]);
  const pool = rows.filter((row) => !copies.has(row.id));
  return { version, pool, leftOut: rows.length - pool.length };
}

/** A pool larger than this is compared in sketched vectors (lib/selection/chooseItems.ts). */
export const sketched = (poolSize: number) => poolSize > DIRECT_ITEMS;

/** The vectors of `ids` as the choice compares them (sketched when `sketch`), read in batches; `onBatch` after each. */
export async function poolVectors(
  vectors: VectorStore,
  live: Liveness,
  read: { collection: string; ids: readonly string[]; sketch: boolean; seed: number },
  onBatch: (done: number) => Promise<void> = async () => {},
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let start = 0; start < read.ids.length; start += READ_BATCH) {
    heartbeatOrStop(live);
    const batch = await storedVectors(vectors, read.collection, read.ids.slice(start, start + READ_BATCH));
    out.push(...(read.sketch ? sketchVectors(batch, batch[0].length, read.seed) : batch));
    await onBatch(out.length);
  }
  return out;
}

/** The mix chosen from the pool (`vectors` in its order) and the tag written with each item's score and reason in one transaction. */
export async function chooseAndTag(db: Db, live: Liveness, input: SelectionInput, chosenFrom: PoolOfSelection, vectors: readonly Float32Array[]): Promise<SelectionResult> {
  const { version, pool, leftOut } = chosenFrom;
  const selectionPoolOf = { vectors, dim: vectors[0]?.length ?? 0, uniqueness: pool.map((row) => row.uniqueness ?? 0), labelled: pool.flatMap((row, i) => (row.label === null ? [] : [i])) };
  const labels = pool.map((row) => row.label);
  const chosen =
    pool.length === 0
      ? []
      : await chooseItems(selectionPoolOf, {
          weights: input.weights,
          count: input.count,
          seed: input.seed,
          balance: input.balance ? balanceOf(labels, selectionPoolOf, input.seed) : undefined,
        });
  heartbeatOrStop(live);
  await writeSelectionTag(
    db,
    version.id,
    input.tag,
    input.userId,
    chosen.map((pick) => ({ mediaId: pool[pick.index].id, score: pick.score, reason: pick.reason })),
  );
  return { chosen: chosen.length, pool: pool.length, leftOut };
}

/**
 * SELECTION's work in one activity (workflows that started before services/selectionChunks.ts spread it over
 * workers): the pool, its vectors read in batches (sketched at once when the pool is large), the mix chosen and the
 * tag written. Deterministic for the input, so a retry writes the same tag.
 */
export async function runSelection(deps: { db: Db; vectors: VectorStore }, live: Liveness, input: SelectionInput): Promise<SelectionResult> {
  const chosenFrom = await poolOfSelection(deps.db, input);
  const { version, pool } = chosenFrom;
  const report = createProgressReporter(deps.db, input, 'select', 'Reading vectors');
  const read = { collection: imageCollection(version.vector_space_id), ids: pool.map((row) => row.id), sketch: sketched(pool.length), seed: input.seed };
  const vectors = await poolVectors(deps.vectors, live, read, (done) => report(done, pool.length));
  return chooseAndTag(deps.db, live, input, chosenFrom, vectors);
}

/** The task COMPLETED with what was chosen; the dataset back to the status it was claimed from. */
export async function completeSelection(db: Db, input: Pick<SelectionInput, 'taskId' | 'datasetId' | 'previousStatus' | 'tag' | 'count'> & SelectionResult): Promise<void> {
  const fewer = input.chosen < input.count ? ` (${input.count} asked; the pool holds ${input.pool})` : '';
  const message = `Tagged ${input.chosen} media “${input.tag}” from a pool of ${input.pool}${fewer}; ${input.leftOut} duplicate ${input.leftOut === 1 ? 'copy' : 'copies'} left out`;
  await commitTaskEnd(db, input.datasetId, (trx) => completeTask(trx, input, releaseTransition('select_items', input.previousStatus), message));
}

/** The items a selection chose for a tag of the dataset, with their scores and reasons. */
export async function selectionPicksOf(db: Db, dataset: DatasetRow, tagId: string): Promise<Array<{ media_id: string; score: number; reason: string }>> {
  if (!(await tagExists(db, dataset.id, tagId))) throw notFound('Tag not found');
  return (await selectionPicks(db, dataset.head_version_id, tagId)).map((pick) => ({ media_id: pick.mediaId, score: pick.score, reason: pick.reason }));
}
