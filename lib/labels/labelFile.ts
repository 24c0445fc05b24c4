import { parse as parseCsv } from 'csv-parse/sync';
import { mediaPath } from '../media/mediaPath';
import { labelRefusal, MAX_CLASSES } from './labelRule';

/** Where the labels of received files come from: their folders, a CSV of `file,label[,split]`, or a COCO file. */
export type LabelsFrom = 'folder' | 'csv' | 'coco';

/** One row of a label file: the file it names, its label (null: named, but without a label) and split, and where it is in the file. */
export interface LabelRow {
  file: string;
  label: string | null;
  split: string | null;
  where: string;
}

/** A received file's label and split, as ingestion writes them into the label and split fields. */
export interface FileLabel {
  fileName: string;
  label: string | null;
  split: string | null;
}

export class LabelFileError extends Error {}

/** Splits a dataset may have: the exports write each as files of its own (lib/export/userClasses.ts). */
const MAX_SPLITS = 8;
/** A split name every export reader takes as a file and split name. */
const SPLIT_NAME = /^[A-Za-z0-9_]{1,64}$/;
/** Names a refusal lists before it says how many there are in all. */
const SHOWN = 10;

const listed = (names: string[]) => names.slice(0, SHOWN).join(', ') + (names.length > SHOWN ? `, … (${names.length} in all)` : '');

/** First cells that make the first row of a CSV its header (Kaggle's `id,label`, `image,class`, `file_name,...`). */
const HEADER_FIRST_CELLS = new Set(['file', 'file_name', 'filename', 'file_path', 'filepath', 'path', 'image', 'image_id', 'image_name', 'id', 'name', 'fname']);

/** Rows of a CSV of `file,label[,split]` by position, after a header row when there is one. */
export function parseLabelCsv(bytes: Buffer): LabelRow[] {
  let records: string[][];
  try {
    records = parseCsv(bytes, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true });
  } catch (error) {
    throw new LabelFileError(`cannot read the CSV labels file: ${(error as Error).message}`);
  }
  const start = records.length > 0 && HEADER_FIRST_CELLS.has((records[0][0] ?? '').toLowerCase()) ? 1 : 0;
  return records.slice(start).map((record, index) => {
    const where = `row ${index + start + 1}`;
    if (record.length < 2 || record.length > 3) throw new LabelFileError(`labels CSV ${where}: expected file,label[,split], got ${record.length} column(s)`);
    if (record[0] === '') throw new LabelFileError(`labels CSV ${where}: the file is empty`);
    return { file: record[0], label: record[1], split: record[2] || null, where };
  });
}

const cocoId = (value: unknown) => (typeof value === 'number' || typeof value === 'string' ? String(value) : undefined);

function cocoArray(document: Record<string, unknown>, key: string, required: boolean): Array<Record<string, unknown>> {
  const value = document[key];
  if (value === undefined && !required) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'object' || item === null)) {
    throw new LabelFileError(`COCO labels file: "${key}" must be an array of objects`);
  }
  return value as Array<Record<string, unknown>>;
}

/**
 * An image of a COCO file per row, labelled with the category most of its annotations have (ties: the one listed
 * first in `categories`); an image without annotations is named with no label.
 */
export function parseCocoLabels(bytes: Buffer): LabelRow[] {
  let document: unknown;
  try {
    document = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new LabelFileError(`cannot read the COCO labels file: ${(error as Error).message}`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new LabelFileError('COCO labels file: expected a JSON object with "images"');
  const doc = document as Record<string, unknown>;
  const categories = new Map<string, { name: string; order: number }>();
  cocoArray(doc, 'categories', false).forEach((category, order) => {
    const id = cocoId(category.id);
    if (id === undefined || typeof category.name !== 'string') throw new LabelFileError(`COCO labels file: category ${order + 1} needs an id and a name`);
    categories.set(id, { name: category.name.trim(), order });
  });
  const votes = new Map<string, Map<string, number>>();
  cocoArray(doc, 'annotations', false).forEach((annotation, index) => {
    const image = cocoId(annotation.image_id);
    const category = cocoId(annotation.category_id);
    if (image === undefined || category === undefined || !categories.has(category)) {
      throw new LabelFileError(`COCO labels file: annotation ${index + 1} needs an image_id and the id of a listed category`);
    }
    const counts = votes.get(image) ?? new Map<string, number>();
    counts.set(category, (counts.get(category) ?? 0) + 1);
    votes.set(image, counts);
  });
  const images = new Set<string>();
  const rows = cocoArray(doc, 'images', true).map((image, index): LabelRow => {
    const id = cocoId(image.id);
    if (id === undefined || typeof image.file_name !== 'string' || image.file_name === '') {
      throw new LabelFileError(`COCO labels file: image ${index + 1} needs an id and a file_name`);
    }
    images.add(id);
    const counts = [...(votes.get(id) ?? new Map<string, number>())].map(([category, count]) => ({ ...categories.get(category)!, count }));
    counts.sort((a, b) => b.count - a.count || a.order - b.order);
    return { file: image.file_name, label: counts[0]?.name ?? null, split: null, where: `image ${id}` };
  });
  const strays = [...votes.keys()].filter((id) => !images.has(id));
  if (strays.length > 0) throw new LabelFileError(`COCO labels file: annotations of images it does not list: ${listed(strays)}`);
  return rows;
}

export function parseLabelFile(format: Exclude<LabelsFrom, 'folder'>, bytes: Buffer): LabelRow[] {
  return format === 'csv' ? parseLabelCsv(bytes) : parseCocoLabels(bytes);
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const stem = (name: string) => (name.lastIndexOf('.') > 0 ? name.slice(0, name.lastIndexOf('.')) : name);

function groupBy(names: string[], key: (name: string) => string): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const name of names) groups.set(key(name), [...(groups.get(key(name)) ?? []), name]);
  return groups;
}

/**
 * The files a label file's rows name: by relative path (`cats/0001.png`, by the one naming rule), else by base name
 * when one file has it (`0001.png`), else, for a name without an extension (Kaggle's ids), by the one file of that stem.
 * A row naming no file, or several, and two rows naming one file, refuse the whole file.
 */
export function matchLabelRows(rows: LabelRow[], fileNames: string[]): FileLabel[] {
  const paths = new Set(fileNames);
  const byBase = groupBy(fileNames, baseName);
  const byStem = groupBy(fileNames, (name) => stem(baseName(name)));
  const missing: string[] = [];
  const ambiguous: string[] = [];
  const twice: string[] = [];
  const matched = new Map<string, FileLabel>();
  for (const row of rows) {
    const path = mediaPath(row.file).fileName;
    const base = baseName(path);
    const candidates = paths.has(path) ? [path] : (byBase.get(base) ?? (base.includes('.') ? [] : (byStem.get(base) ?? [])));
    if (candidates.length === 0) missing.push(row.file);
    else if (candidates.length > 1) ambiguous.push(row.file);
    else if (matched.has(candidates[0])) twice.push(candidates[0]);
    else matched.set(candidates[0], { fileName: candidates[0], label: row.label === null ? null : row.label.trim(), split: row.split });
  }
  if (missing.length > 0) throw new LabelFileError(`The labels file names files that were not uploaded: ${listed(missing)}`);
  if (ambiguous.length > 0) throw new LabelFileError(`The labels file names files by a base name several uploaded files have (give their paths, such as cats/0001.png): ${listed(ambiguous)}`);
  if (twice.length > 0) throw new LabelFileError(`The labels file names these files more than once: ${listed(twice)}`);
  return [...matched.values()];
}

/** A label and split to check, and how a refusal names where it is (a file, a row of a labels file). */
export interface LabelToCheck {
  name: string;
  label: string | null;
  split: string | null;
}

/**
 * Refuses labels the dataset could not keep as classes, whatever their source: a label breaking the one label rule
 * (lib/labels/labelRule.ts), more than MAX_CLASSES classes with those the dataset already has, or a split that is not
 * a split name, or more than MAX_SPLITS splits.
 */
export function checkFileLabels(labels: LabelToCheck[], existingClasses: Iterable<string> = [], source = 'label'): void {
  const classes = new Set(existingClasses);
  const splits = new Set<string>();
  for (const { name: fileName, label, split } of labels) {
    if (label !== null) {
      const refusal = labelRefusal(label);
      if (refusal) throw new LabelFileError(`The ${source} of ${fileName} ${refusal} (${JSON.stringify(label.slice(0, 120))}): a label is 1-100 characters of one printable line`);
      classes.add(label);
    }
    if (split !== null) {
      if (!SPLIT_NAME.test(split)) throw new LabelFileError(`The split of ${fileName} (${JSON.stringify(split.slice(0, 80))}) is not a split name: use letters, digits and _ (at most 64)`);
      splits.add(split);
    }
  }
  if (classes.size > MAX_CLASSES) throw new LabelFileError(`The labels make ${classes.size} classes; a dataset has at most ${MAX_CLASSES}`);
  if (splits.size > MAX_SPLITS) throw new LabelFileError(`The labels name ${splits.size} splits; a dataset has at most ${MAX_SPLITS}`);
}

/** The labels of files sent from folders: each file's folder (files at the top have none). */
export function folderLabels(files: Array<{ fileName: string; folder?: string | null }>): FileLabel[] {
  return files.filter((file) => file.folder).map((file) => ({ fileName: file.fileName, label: file.folder!, split: null }));
}
