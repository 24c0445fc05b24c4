import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { applyLabel } from '../db/repositories/labels';
import { labelFieldsOfVersion, writeLabelList } from '../db/repositories/groundTruth';
import { taskCreator } from '../db/repositories/tasks';
import { transitionDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import { countSelectedMedia, type MediaSelection } from '../db/repositories/selection';
import { releaseTransition } from '../lib/datasetStates';
import { unprocessable } from '../lib/errors';
import type { LabelPropagationInput } from '../workflows/contracts';
import { claimDatasetFor, requireStatusFor } from './datasetStates';
import { requireCurrentMapLayout } from './map';
import { createTask, type TaskDeps } from './taskWorkflows';
import { commitTaskEnd, completeTask } from './taskTypes';

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

export interface PropagationResult {
  seeds: number;
  propagated: number;
}

/**
 * Where the dataset has a label field (the user's own labels), the label becomes the class of the seeds and the
 * neighbours found, as one undoable action of the task's user. Otherwise it goes on them as a label beside the
 * models' (source `user` on the seeds, `propagated` on the neighbours at their best similarity to a seed). One transaction.
 */
export async function writePropagatedLabel(
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

/** The task COMPLETED with what was labelled; the dataset back to the status it was claimed from. */
export async function completeLabelPropagation(
  db: Db,
  input: Pick<LabelPropagationInput, 'taskId' | 'datasetId' | 'previousStatus'> & PropagationResult & { label: string },
): Promise<void> {
  const message = `Labelled ${input.seeds} selected media “${input.label}” and propagated it to ${input.propagated} neighbours`;
  await commitTaskEnd(db, input.datasetId, (trx) => completeTask(trx, input, releaseTransition('propagate_labels', input.previousStatus), message));
}
