import type { Db } from '../db/connection';
import { classCounts } from '../db/repositories/groundTruth';
import type { TransactionLabels } from '../db/repositories/ingestion';
import { invalid } from '../lib/errors';
import { checkFileLabels, folderLabels, LabelFileError, matchLabelRows, parseLabelFile, type FileLabel, type LabelsFrom } from '../lib/labels/labelFile';

/** The split field a label file's split column fills when the dataset declared none. */
export const DEFAULT_SPLIT_FIELD = 'split';

/** Labels sent with files: where from (their folders, or the `labels` file part as CSV or COCO), and the field asked for. */
export interface LabelsRequest {
  from: LabelsFrom;
  /** The label field asked for; null: the declared one, else `label`. */
  field: string | null;
  /** The bytes of the `labels` file part (csv and coco only). */
  file?: Buffer;
}

/** What one import path resolved: each labelled file's label and split, and the fields they go in. */
export interface ResolvedLabels {
  transaction: TransactionLabels;
  files: FileLabel[];
}

function asInvalid<T>(resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    if (error instanceof LabelFileError) throw invalid(error.message);
    throw error;
  }
}

/**
 * The one import path of labels sent with files, at creation and on add_media: each source (the files' folders, a
 * CSV of `file,label[,split]`, a COCO file) becomes a label and split per file, checked by one rule (the label rule,
 * at most MAX_CLASSES classes with those the version has, split names) before anything is written; bad input is a 400.
 */
export async function resolveUploadLabels(
  db: Db,
  request: LabelsRequest,
  files: Array<{ fileName: string; folder?: string | null }>,
  target: { versionId: string | null; labelField: string; splitField: string | null; filesLater?: boolean },
): Promise<ResolvedLabels> {
  const existing = target.versionId === null ? [] : (await classCounts(db, target.versionId, target.labelField)).classes.map((row) => row.label);
  let labels: FileLabel[];
  if (request.from === 'folder') {
    if (request.file) throw invalid('A labels file goes with labels_from=csv or labels_from=coco, not labels_from=folder');
    labels = folderLabels(files);
    if (!target.filesLater && labels.length === 0) throw invalid('labels_from=folder: no file was sent with a folder in its name (such as cats/1.jpg)');
    asInvalid(() => checkFileLabels(labels.map((row) => ({ ...row, name: row.fileName })), existing, 'folder (its label)'));
  } else {
    if (!request.file) throw invalid(`labels_from=${request.from} needs the labels file as a multipart file part named "labels"`);
    const bytes = request.file;
    const rows = asInvalid(() => parseLabelFile(request.from as 'csv' | 'coco', bytes));
    // The rows' labels first, so a refusal names the row; then the files they name.
    asInvalid(() => checkFileLabels(rows.map((row) => ({ name: `${row.where} (${row.file})`, label: row.label === null ? null : row.label.trim(), split: row.split })), existing));
    labels = asInvalid(() => matchLabelRows(rows, files.map((file) => file.fileName)));
    if (!labels.some((row) => row.label !== null)) throw invalid('The labels file gives no file a label');
  }
  const splitField = labels.some((row) => row.split !== null) ? (target.splitField ?? DEFAULT_SPLIT_FIELD) : target.splitField;
  if (splitField === target.labelField) throw invalid(`The label field and the split field cannot both be ${splitField}: send another label_field`);
  return { transaction: { labelsFrom: request.from, labelField: target.labelField, splitField }, files: labels };
}
