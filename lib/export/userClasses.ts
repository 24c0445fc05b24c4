import type { ExportRecord } from './exportRecord';
import { UnexportableError } from './writer';

/**
 * The user's own labels as training formats take them: the class of a media item is the trimmed,
 * non-empty value of the version's declared label field in its custom metadata, and its split the
 * value of the declared split field. `names` are every class of the version in code-point order
 * (as Python's `sorted`, so torchvision's ImageFolder and `datasets`' ClassLabel number them alike).
 */
export interface UserClasses {
  labelField: string;
  splitField: string | null;
  names: string[];
}

/** The split of an item the split field leaves empty. */
export const UNASSIGNED_SPLIT = 'unassigned';
/** Splits a format may hold: each keeps its own files open while it writes. */
export const MAX_SPLITS = 8;
/** A split name every reader takes as a file name and a `datasets` split name (`\w+`). */
const SPLIT_NAME = /^[A-Za-z0-9_]{1,64}$/;

/** A custom-metadata value as text, as Postgres's `->>` gives it for strings, numbers and booleans; null otherwise or when empty. */
function fieldText(record: ExportRecord, field: string): string | null {
  const value = record.custom_metadata?.[field];
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return null;
  // Spaces only, as Postgres's btrim (the label-quality check and the class list read the field so).
  return String(value).replace(/^ +| +$/g, '') || null;
}

export function classOf(record: ExportRecord, classes: UserClasses): string | null {
  return fieldText(record, classes.labelField);
}

/** The record's split: its split field's value, `unassigned` when empty; null when the version declares no split field. */
export function splitOf(record: ExportRecord, classes: UserClasses): string | null {
  if (classes.splitField === null) return null;
  const split = fieldText(record, classes.splitField) ?? UNASSIGNED_SPLIT;
  if (!SPLIT_NAME.test(split)) {
    throw new UnexportableError(
      `split ${JSON.stringify(split)} of ${record.file_name} (field ${classes.splitField}) is not a split name: use letters, digits and _ (at most 64)`,
    );
  }
  return split;
}

/** Splits in order of first appearance, at most MAX_SPLITS. */
export class Splits {
  private readonly seen = new Set<string>();

  add(split: string): void {
    if (this.seen.has(split)) return;
    if (this.seen.size === MAX_SPLITS) throw new UnexportableError(`the split field has more than ${MAX_SPLITS} values (${[...this.seen, split].join(', ')}): a split is train, val, test or a few more`);
    this.seen.add(split);
  }

  list(): string[] {
    return [...this.seen];
  }
}

/** Code-point order (Python's str order), not UTF-16's. */
export function byCodePoint(a: string, b: string): number {
  const [x, y] = [Array.from(a), Array.from(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i].codePointAt(0)! - y[i].codePointAt(0)!;
  }
  return x.length - y.length;
}
