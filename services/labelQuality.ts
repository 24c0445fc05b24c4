import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { transitionDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import { countMediaWithField, currentLabelQualityReport, customMetadataFields, labelQualityReport, type MetadataFieldRow } from '../db/repositories/labelQuality';
import { releaseTransition } from '../lib/datasetStates';
import { notFound, unprocessable } from '../lib/errors';
import type { LabelQualityReport } from '../lib/quality/labelQuality';
import type { LabelQualityInput } from '../workflows/contracts';
import { claimDatasetFor, requireStatusFor } from './datasetStates';
import { createTask, type TaskDeps } from './taskWorkflows';
import { commitTaskEnd, completeTask } from './taskTypes';

export interface LabelFields {
  labelField: string;
  splitField: string | null;
}

/**
 * Declares which custom-metadata field holds each image's label (and which its split) and starts a
 * LABEL_QUALITY task that checks them; a field no media carries is refused, and nothing changes.
 */
export async function declareLabelFields(deps: TaskDeps, dataset: DatasetRow, user: User, fields: LabelFields): Promise<string> {
  requireStatusFor(dataset, 'check_labels');
  for (const [name, field] of [['label_field', fields.labelField], ['split_field', fields.splitField]] as const) {
    if (field !== null && (await countMediaWithField(deps.db, dataset.head_version_id, field)) === 0) {
      throw unprocessable(`${name}: no media of this dataset has the custom metadata field "${field}"`);
    }
  }
  let previousStatus = dataset.status_new;
  const splits = fields.splitField === null ? '' : ` and splits from “${fields.splitField}”`;
  return createTask(
    deps,
    {
      taskType: 'LABEL_QUALITY',
      datasetId: dataset.id,
      user,
      statusMessage: `Queued: labels from “${fields.labelField}”${splits}`,
      input: (taskId): LabelQualityInput => ({ taskId, datasetId: dataset.id, ...fields, previousStatus }),
    },
    async (trx) => {
      previousStatus = await claimDatasetFor(trx, dataset, 'check_labels');
    },
    async (db) => {
      await transitionDatasetStatus(db, dataset.id, releaseTransition('check_labels', previousStatus));
    },
  );
}

/** The label-quality report of the dataset as it is now. */
export async function labelQualityOf(deps: Pick<TaskDeps, 'db'>, dataset: DatasetRow): Promise<LabelQualityReport> {
  const report = await currentLabelQualityReport(deps.db, dataset.head_version_id);
  if (!report) throw notFound('No label-quality report: declare the label field first (PUT /api/v1/dataset/{dataset_id}/label_fields)');
  return report;
}

/** Custom-metadata fields a label field may be declared from (the web app offers them). */
const CANDIDATE_FIELDS = 100;

export interface LabelFieldsState {
  /** The fields the last check read; null before the first declaration. */
  label_field: string | null;
  split_field: string | null;
  candidates: MetadataFieldRow[];
}

/** The declared label and split fields and the custom-metadata fields the dataset's media carry. */
export async function labelFieldsOf(deps: Pick<TaskDeps, 'db'>, dataset: DatasetRow): Promise<LabelFieldsState> {
  const [report, candidates] = await Promise.all([
    labelQualityReport(deps.db, dataset.head_version_id),
    customMetadataFields(deps.db, dataset.head_version_id, CANDIDATE_FIELDS),
  ]);
  return { label_field: report?.label_field ?? null, split_field: report?.split_field ?? null, candidates };
}

/** What a check found, for its task's message. */
export interface LabelQualitySummary {
  labelled: number;
  flagged: number;
  leakagePairs: number;
}

/** The task COMPLETED with what was found; the dataset back to the status it was claimed from. */
export async function completeLabelQuality(
  db: Db,
  input: Pick<LabelQualityInput, 'taskId' | 'datasetId' | 'previousStatus'> & LabelQualitySummary,
): Promise<void> {
  const message = `Checked ${input.labelled} labelled media: ${input.flagged} likely mislabelled, ${input.leakagePairs} near-duplicate pairs across splits`;
  await commitTaskEnd(db, input.datasetId, (trx) => completeTask(trx, input, releaseTransition('check_labels', input.previousStatus), message));
}
