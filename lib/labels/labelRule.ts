import { MAX_LABEL_LENGTH } from '../vql/parseVql';

/** C0 and C1 controls (U+0085 among them) and the line and paragraph separators YAML 1.1 readers break lines at. */
export const CONTROL_OR_LINE_BREAK = /[\p{Cc}\u2028\u2029]/u;

/**
 * Why a label of the user's own (a fix, propagation, a folder, a CSV or COCO row) cannot be kept, already trimmed:
 * empty, over MAX_LABEL_LENGTH characters, or not one printable line. Undefined when it can.
 */
export function labelRefusal(label: string): string | undefined {
  if (label === '') return 'is empty';
  if (label.length > MAX_LABEL_LENGTH) return `is longer than ${MAX_LABEL_LENGTH} characters`;
  if (CONTROL_OR_LINE_BREAK.test(label)) return 'contains control characters or line breaks';
  return undefined;
}

/** Classes a dataset's label field may take: more is a field of ids or free text, not classes. */
export const MAX_CLASSES = 1_000;
