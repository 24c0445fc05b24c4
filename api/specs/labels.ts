import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { datasetIdParams, labelText, startedTask } from './common';
import { selectionBody } from './selection';

const propagationBody = z.object({
  label: labelText('label'),
  selection: selectionBody,
  min_similarity: z
    .number()
    .min(0.5, 'min_similarity must be between 0.5 and 1')
    .max(1, 'min_similarity must be between 0.5 and 1')
    .default(0.9)
    .meta({ description: 'A neighbour gets the label when its cosine similarity to a selected media item is at least this' }),
  max_neighbours: z
    .number()
    .int('max_neighbours must be an integer')
    .min(0, 'max_neighbours must be between 0 and 1000')
    .max(1000, 'max_neighbours must be between 0 and 1000')
    .default(50)
    .meta({ description: 'At most this many nearest neighbours of each selected item; 0 labels the selection only' }),
});

const fieldName = (field: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(100, `${field} is at most 100 characters`);

const labelFieldsBody = z
  .object({
    label_field: fieldName('label_field').meta({ description: "The custom-metadata field holding each image's class label" }),
    split_field: fieldName('split_field')
      .nullable()
      .default(null)
      .meta({ description: 'The custom-metadata field holding its split (train, test, …); near-duplicates in different splits are leakage' }),
  })
  .refine((body) => body.label_field !== body.split_field, { message: 'split_field must differ from label_field', path: ['split_field'] });

const labelQualityReportSchema = z
  .object({
    label_field: z.string(),
    split_field: z.string().nullable(),
    checked_at: z.string().meta({ format: 'date-time' }),
    n_media: z.number().int().meta({ description: 'Embedded images read' }),
    n_labelled: z.number().int(),
    n_flagged: z.number().int().meta({ description: 'Images with a mislabel issue' }),
    estimated_error_rate: z.number().meta({ description: 'Share of labels estimated wrong (confident learning)' }),
    classes: z.array(z.object({ label: z.string(), count: z.number().int(), flagged: z.number().int(), estimated_error_rate: z.number() })),
    confused_pairs: z
      .array(z.object({ label: z.string(), suggested_label: z.string(), count: z.number().int() }))
      .meta({ description: 'Flagged labels by given and suggested class, most frequent first (at most 10)' }),
    leakage: z.object({
      pairs: z.number().int().meta({ description: 'Near-duplicate pairs (similarity ≥ 0.9) whose splits differ' }),
      by_splits: z.array(z.object({ splits: z.tuple([z.string(), z.string()]), pairs: z.number().int() })),
    }),
  })
  .meta({ id: 'LabelQualityReport' });

const labelFieldsSchema = z
  .object({
    label_field: z.string().nullable().meta({ description: 'The label field the last check read; null before the first declaration' }),
    split_field: z.string().nullable(),
    candidates: z
      .array(z.object({ name: z.string(), media: z.number().int(), values: z.number().int().meta({ description: 'Distinct values among those media' }) }))
      .meta({ description: 'Custom-metadata fields of the dataset’s media, most carried first (at most 100)' }),
  })
  .meta({ id: 'LabelFields' });

export const labelRoutes = {
  propagate: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/labels/propagate',
    tag: 'labels',
    summary: 'Label the selected media and propagate the label to their near neighbours, in a LABEL_PROPAGATION task',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams, body: propagationBody },
    responses: { 202: { description: 'Started', schema: startedTask } },
    errors: [403, 404, [409, 'The dataset cannot take labels in its status, or a VQL map region of an older map layout'], [422, 'Invalid input, or a selection naming no media of the dataset']],
  }),
  previewPropagation: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/labels/propagate/preview',
    tag: 'labels',
    summary: 'How many media a propagation would label (and whose class it would change), at its similarity and at 0.5-0.95, before it runs',
    description: 'Takes the body of POST …/labels/propagate and changes nothing; it searches from at most 1,000 selected media.',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams, body: propagationBody },
    responses: {
      200: {
        description: 'Preview',
        schema: z
          .object({
            seeds: z.number().int().meta({ description: 'Selected media' }),
            neighbours: z.number().int().meta({ description: 'Neighbours labelled at min_similarity' }),
            changes: z.number().int().nullable().meta({ description: 'Seeds and neighbours whose class would change; null when the dataset has no label field' }),
            by_similarity: z.array(z.object({ min_similarity: z.number(), neighbours: z.number().int() })),
          })
          .meta({ id: 'PropagationPreview' }),
      },
    },
    errors: [403, 404, [409, 'The dataset cannot take labels in its status, or a VQL map region of an older map layout'], [422, 'Invalid input, a selection naming no media, or more than 1,000']],
  }),
  declareFields: defineRoute({
    method: 'put',
    path: '/dataset/:dataset_id/label_fields',
    tag: 'labels',
    summary: 'Declare the custom-metadata fields holding labels and splits, and check them in a LABEL_QUALITY task',
    description:
      'The task flags likely mislabelled images (issue mislabel, with the suggested label) from their nearest neighbours’ labels, ' +
      'near-duplicates in different splits (issue leakage), and writes the report of GET …/label_quality. A reindex checks again.',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams, body: labelFieldsBody },
    responses: { 202: { description: 'Started', schema: startedTask } },
    errors: [403, 404, [409, 'The dataset cannot be checked in its status'], [422, 'Invalid input, or a field no media of the dataset carries']],
  }),
  fields: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/label_fields',
    tag: 'labels',
    summary: 'The declared label and split fields, and the custom-metadata fields they may be declared from',
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Fields', schema: labelFieldsSchema } },
    errors: [403, 404],
  }),
  report: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/label_quality',
    tag: 'labels',
    summary: 'The label-quality report of the dataset: per class counts and error rates, confused pairs, leakage across splits',
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Report', schema: labelQualityReportSchema } },
    errors: [403, [404, 'Dataset not found, or no label fields declared yet']],
  }),
};
