import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { touchDataset, type DatasetRow } from '../db/repositories/datasets';
import {
  acceptSuggestedLabels,
  classCounts,
  labelFieldsOfVersion,
  labelHistory,
  setLabelOn,
  undoLastLabelAction,
  type ClassCount,
  type LabelChangeRow,
  type LabelWrite,
} from '../db/repositories/groundTruth';
import type { MediaSelection } from '../db/repositories/selection';
import { conflict, notFound, unprocessable } from '../lib/errors';
import { lockDatasetFor } from './datasetStates';
import { requireCurrentMapLayout } from './map';
import { MAX_CLASSES } from '../lib/labels/labelRule';

/** The least mislabel score "accept all" takes unless told otherwise: below it, suggestions break about as many labels as they fix. */
export const DEFAULT_MIN_SCORE = 0.95;

export interface Classes {
  label_field: string | null;
  split_field: string | null;
  classes: ClassCount[];
  /** Images and frames without a label (all of them before a label field is declared). */
  unlabelled: number;
}

/** The dataset's classes with their counts, as Explore's class facet shows them. */
export async function classesOf(db: Db, dataset: DatasetRow): Promise<Classes> {
  const fields = await labelFieldsOfVersion(db, dataset.head_version_id);
  if (fields.labelField === null) {
    const { unlabelled } = await classCounts(db, dataset.head_version_id, '');
    return { label_field: null, split_field: fields.splitField, classes: [], unlabelled };
  }
  return { label_field: fields.labelField, split_field: fields.splitField, ...(await classCounts(db, dataset.head_version_id, fields.labelField)) };
}

/** The declared label field, or a refusal that says how to declare one. */
async function requireLabelField(db: Db, dataset: DatasetRow): Promise<string> {
  const { labelField } = await labelFieldsOfVersion(db, dataset.head_version_id);
  if (labelField === null) {
    throw conflict('This dataset has no label field yet: declare one (PUT /api/v1/dataset/{dataset_id}/label_fields) or create it with labels_from=folder');
  }
  return labelField;
}

export interface LabelActionResult {
  action_id: string;
  changed: number;
}

/** Runs a label write in one transaction that holds the dataset's status (the state machine's edit_labels). */
async function inLabelWrite<T>(db: Db, dataset: DatasetRow, user: User, action: LabelWrite['action'], write: (trx: Db, labelWrite: LabelWrite) => Promise<T>): Promise<T> {
  const field = await requireLabelField(db, dataset);
  return db.transaction(async (trx) => {
    await lockDatasetFor(trx, dataset, 'edit_labels');
    const written = await write(trx, { versionId: dataset.head_version_id, field, action, userId: user.id });
    await touchDataset(trx, dataset.id);
    return written;
  });
}

/** Gives the selection `label` (null takes its label off). A label no item has yet is a new class, within MAX_CLASSES. */
export async function setLabel(db: Db, dataset: DatasetRow, user: User, selection: MediaSelection, label: string | null): Promise<LabelActionResult> {
  await requireCurrentMapLayout(db, dataset, selection.filters ?? []);
  if (label !== null) {
    const { classes } = await classesOf(db, dataset);
    if (classes.length >= MAX_CLASSES && !classes.some((known) => known.label === label)) {
      throw unprocessable(`The dataset has ${classes.length} classes already, the most it may have; "${label}" would be a new one`);
    }
  }
  const { actionId, changed } = await inLabelWrite(db, dataset, user, 'set', (trx, write) => setLabelOn(trx, write, selection, label));
  return { action_id: actionId, changed };
}

/** Gives flagged items (those listed, or every flagged item) the label the label check suggested, above `minScore`. */
export async function acceptSuggestions(db: Db, dataset: DatasetRow, user: User, options: { mediaIds?: string[]; minScore: number }): Promise<LabelActionResult> {
  const { actionId, changed } = await inLabelWrite(db, dataset, user, 'accept', (trx, write) => acceptSuggestedLabels(trx, write, options));
  return { action_id: actionId, changed };
}

/** Reverts the dataset's latest label action (a set, an accept or a propagation) not undone yet. */
export async function undoLabels(db: Db, dataset: DatasetRow, user: User): Promise<{ action_id: string; action: string; undone: number }> {
  const undone = await db.transaction(async (trx) => {
    await lockDatasetFor(trx, dataset, 'edit_labels');
    const undone = await undoLastLabelAction(trx, dataset.head_version_id, user.id);
    await touchDataset(trx, dataset.id);
    return undone;
  });
  if (!undone) throw notFound('No label change to undo');
  return { action_id: undone.actionId, action: undone.action, undone: undone.undone };
}

/** One item's label changes, newest first. */
export async function labelHistoryOf(db: Db, dataset: DatasetRow, mediaId: string): Promise<LabelChangeRow[]> {
  const changes = await labelHistory(db, dataset.head_version_id, mediaId);
  if (!changes) throw notFound('Media not found');
  return changes;
}
