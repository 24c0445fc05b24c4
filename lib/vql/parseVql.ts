import { z } from 'zod';
import { holdsNul } from '../nulText';
import type { IssueType } from '../quality/imageIssues';

const ISSUE_TYPES = ['duplicates', 'similar', 'outliers', 'blur', 'dark', 'bright', 'broken', 'mislabel', 'leakage'] as const satisfies readonly IssueType[];
const fraction = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');

const textFilter = z.strictObject({
  op: z.enum(['fts', 'semantic'], { message: 'op must be fts or semantic' }),
  value: z.string().trim().min(1, 'value must be a non-empty string'),
  threshold: fraction.optional(),
});
const labelsFilter = z.strictObject({
  op: z.literal('one_of', { message: 'op must be one_of' }),
  value: z.array(z.string().min(1)).min(1, 'value must list at least one label'),
});
/** A label of the user's own: at most this long, in every label source and filter (folders, CSV, propagation, fixes). */
export const MAX_LABEL_LENGTH = 100;
const labelValues = z
  .array(z.string().trim().min(1, 'each value must be a non-empty string').max(MAX_LABEL_LENGTH, `each value is at most ${MAX_LABEL_LENGTH} characters`))
  .min(1, 'value must list at least one value')
  .max(1_000, 'value lists at most 1000 values');
// Extensions of the contract's VQL (docs/decisions.md): the user's own labels (the declared label field) and any custom-metadata field.
const groundTruthFilter = z.strictObject({ op: z.literal('one_of', { message: 'op must be one_of' }), value: labelValues });
const metadataFilter = z.strictObject({
  field: z.string({ error: 'field must be the name of a custom-metadata field' }).min(1, 'field must not be empty').max(100, 'field is at most 100 characters'),
  op: z.literal('one_of', { message: 'op must be one_of' }),
  value: labelValues,
});
const tagsFilter = z.strictObject({
  op: z.literal('is', { message: 'op must be is' }),
  value: z.array(z.uuid('tags must be UUIDs')).min(1, 'value must list at least one tag id'),
});
/** Fields of an issue's details a filter may match (the label-quality issues'): the report's links use them. */
export const ISSUE_DETAIL_FIELDS = ['label', 'suggested_label', 'split', 'duplicate_split'] as const;
export type IssueDetailField = (typeof ISSUE_DETAIL_FIELDS)[number];
const detailValues = z.array(z.string().min(1, 'details values must be non-empty strings')).min(1, 'details values must list at least one value');
const issuesFilter = z.strictObject({
  op: z.literal('issue', { message: 'op must be issue' }),
  value: z.enum(ISSUE_TYPES, { message: `value must be one of ${ISSUE_TYPES.join(', ')}` }),
  mode: z.literal('in', { message: 'mode must be in' }).default('in'),
  details: z
    .strictObject(
      Object.fromEntries(ISSUE_DETAIL_FIELDS.map((field) => [field, detailValues])) as Record<IssueDetailField, typeof detailValues>,
      { error: (issue) => (issue.code === 'unrecognized_keys' ? `details keys must be among ${ISSUE_DETAIL_FIELDS.join(', ')}` : undefined) },
    )
    .partial()
    .optional(),
});
/** A map region (a lasso) has at most this many vertices; the web app simplifies a lasso to far fewer. */
export const MAX_POLYGON_VERTICES = 1_000;
const coordinate = z.number({ message: 'each coordinate must be a finite number' }).refine(Number.isFinite, 'each coordinate must be a finite number');
// An extension of the contract's VQL (docs/decisions.md): the media whose point on the dataset map lies in a polygon of the layout `layout_id`.
const mapFilter = z.strictObject({
  op: z.literal('within', { message: 'op must be within' }),
  layout_id: z.uuid('layout_id must be the UUID of the map layout (GET …/map)'),
  polygon: z
    .array(z.tuple([coordinate, coordinate], { message: 'each vertex must be [x, y]' }), { message: 'polygon must be an array of [x, y] vertices' })
    .min(3, 'polygon must have at least 3 vertices')
    .max(MAX_POLYGON_VERTICES, `polygon must have at most ${MAX_POLYGON_VERTICES} vertices`),
});
const duplicatesFilter = z.strictObject({ op: z.literal('duplicates', { message: 'op must be duplicates' }), value: fraction });
const uniquenessFilter = z.strictObject({ op: z.literal('uniqueness', { message: 'op must be uniqueness' }), value: fraction });

const ELEMENT_SCHEMAS = {
  text: textFilter,
  labels: labelsFilter,
  ground_truth: groundTruthFilter,
  metadata: metadataFilter,
  tags: tagsFilter,
  issues: issuesFilter,
  duplicates: duplicatesFilter,
  uniqueness: uniquenessFilter,
  map: mapFilter,
} as const;

export type VqlKey = keyof typeof ELEMENT_SCHEMAS;
export type VqlFilter = { [K in VqlKey]: { key: K } & z.output<(typeof ELEMENT_SCHEMAS)[K]> }[VqlKey];

export class VqlError extends Error {}

/**
 * Parses the VQL query parameter: a JSON array whose elements each hold exactly one key. Elements
 * combine with AND. Errors name the element, e.g. `vql[1].issues.value: value must be one of ...`.
 */
export function parseVql(raw: string): VqlFilter[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new VqlError('vql: not valid JSON');
  }
  if (!Array.isArray(parsed)) throw new VqlError('vql: must be a JSON array of filters');
  if (holdsNul(parsed)) throw new VqlError('vql: text must not contain NUL characters');
  return parsed.map((element, index) => {
    const where = `vql[${index}]`;
    if (typeof element !== 'object' || element === null || Array.isArray(element)) {
      throw new VqlError(`${where}: each filter must be an object with one key`);
    }
    const keys = Object.keys(element);
    if (keys.length !== 1) throw new VqlError(`${where}: each filter must have exactly one key, got ${keys.length}`);
    const key = keys[0];
    // Own keys only: `in` would take __proto__ or constructor for a filter.
    if (!Object.hasOwn(ELEMENT_SCHEMAS, key)) {
      throw new VqlError(`${where}: unknown key "${key}" (expected one of ${Object.keys(ELEMENT_SCHEMAS).join(', ')})`);
    }
    const schema = ELEMENT_SCHEMAS[key as VqlKey];
    const result = schema.safeParse((element as Record<string, unknown>)[key]);
    if (!result.success) {
      const issue = result.error.issues[0];
      const path = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
      throw new VqlError(`${where}.${key}${path}: ${issue.message}`);
    }
    return { key, ...result.data } as VqlFilter;
  });
}
