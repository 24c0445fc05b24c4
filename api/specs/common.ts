import { z } from 'zod';
import { MAX_LABEL_LENGTH } from '../../lib/vql/parseVql';
import { CONTROL_OR_LINE_BREAK } from '../../lib/labels/labelRule';

export const datasetIdParams = z.object({ dataset_id: z.uuid('dataset_id must be a UUID') });

/**
 * A boolean query parameter or form field: true or false in any case (Python's requests sends
 * `True`), or 1 or 0.
 */
export const booleanParam = (name: string) =>
  z
    .preprocess((value) => (typeof value === 'string' ? value.trim().toLowerCase() : value), z.enum(['true', 'false', '1', '0'], { message: `${name} must be true or false` }))
    .transform((value) => value === 'true' || value === '1');

/** A dataset's name, as creation and rename take it: trimmed, 1-255 characters. */
export const datasetName = (field: string, notAString: string) =>
  z
    // The type's own message would otherwise name every failure "required", a too-long name too.
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required` : notAString) })
    .trim()
    .min(1, `${field} is required`)
    .max(255, `${field} must be at most 255 characters`);

/** A file part of a multipart form (documentation only: uploads are streamed by api/uploads.ts). */
export const filePart = z.string().meta({ format: 'binary' });

/** The body of every error response. */
export const errorSchema = z.object({ detail: z.string() }).meta({ id: 'Error' });

/** `{"task_id": ...}` of a request that started a task. */
export const startedTask = z.object({ task_id: z.uuid() });

/** What a `vql` parameter takes, the contract's keys and our map extension (docs/decisions.md). */
export const VQL_DESCRIPTION =
  'JSON array of VQL filters, combined with AND. Besides the contract\'s keys, {"map": {"op": "within", "layout_id": <layout_id of GET …/map>, ' +
  '"polygon": [[x, y], …] (3-1,000 finite vertices)}} keeps the media whose point on the dataset map lies inside the polygon; 409 when the map was laid out anew since. ' +
  '{"ground_truth": {"op": "one_of", "value": [<class>, …]}} keeps the media whose own label (the declared label field, GET …/classes) is one of the classes; ' +
  '{"metadata": {"field": <name>, "op": "one_of", "value": [<text>, …]}} those whose custom-metadata field, as text, is one of the values';
/** The refusal of a map region drawn on an older layout of the map. */
export const STALE_MAP_REGION: [409, string] = [409, 'A VQL map region of an older map layout (the map was laid out anew since)'];

/** The largest labels file (a CSV or COCO file sent with labels_from=csv|coco). */
export const MAX_LABELS_FILE_BYTES = 64 * 1024 * 1024;

/** labels_from and label_field, of process_files (query) and add_media (form): each file's folder, CSV row or COCO image gives its label. */
export const labelsFromFields = (when: string, fieldDefault: string) => ({
  labels_from: z
    .enum(['folder', 'csv', 'coco'], { error: 'labels_from must be "folder", "csv" or "coco"' })
    .optional()
    .meta({
      description:
        `folder: each file's parent folder name (cats for cats/1.jpg) is its label; csv: the file part "labels", rows file,label[,split] (a header row ` +
        'optional), a split column filling the split field; coco: the file part "labels", a COCO JSON whose images take the category most of their ' +
        'annotations have. Rows name files by relative path (cats/0001.png), else by a base name one file has. A label is 1-100 characters of one ' +
        `printable line, at most 1,000 classes; a row naming a file not sent refuses the request. Afterwards: ${when}`,
    }),
  label_field: z
    .string({ error: 'label_field must be a single string' })
    .trim()
    .min(1, 'label_field must not be empty')
    .max(100, 'label_field is at most 100 characters')
    .optional()
    .meta({ description: `The custom-metadata field the labels go in (default ${fieldDefault}); needs labels_from` }),
});

/** label_field only goes with labels_from. */
export const labelFieldNeedsLabelsFrom = (input: { labels_from?: string; label_field?: string }) =>
  input.label_field === undefined || input.labels_from !== undefined;
export const LABEL_FIELD_ALONE = 'label_field needs labels_from (folder, csv or coco)';

/** A label of the user's own, from any source (a fix, propagation): trimmed, 1-100 characters, one printable line. */
export const labelText = (field: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(MAX_LABEL_LENGTH, `${field} is at most ${MAX_LABEL_LENGTH} characters`)
    .refine((text) => !CONTROL_OR_LINE_BREAK.test(text), `${field} must not contain control characters or line breaks`);
