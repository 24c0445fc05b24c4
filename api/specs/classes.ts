import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { datasetIdParams, labelText } from './common';
import { selectionBody } from './selection';
import { DEFAULT_MIN_SCORE } from '../../services/groundTruth';

const classesSchema = z
  .object({
    label_field: z.string().nullable().meta({ description: 'The custom-metadata field holding each image’s class; null before one is declared' }),
    split_field: z.string().nullable(),
    classes: z.array(z.object({ label: z.string(), count: z.number().int().meta({ description: 'Images and video frames of the class' }) })),
    unlabelled: z.number().int().meta({ description: 'Images and video frames without a class' }),
  })
  .meta({ id: 'Classes' });

const labelAction = z.object({
  action_id: z.uuid().meta({ description: 'The action, as POST …/classes/undo names it' }),
  changed: z.number().int().meta({ description: 'Media whose class changed (those that had it already are left alone)' }),
});

const LABEL_WRITE_ERRORS = [
  403,
  404,
  [409, 'The dataset cannot change labels in its status, has no label field declared, or a VQL map region of an older map layout'],
  [422, 'Invalid input, or a new class beyond the 1,000 a dataset may have'],
] as const satisfies Array<403 | 404 | [409 | 422, string]>;

const mediaParams = datasetIdParams.extend({ media_id: z.uuid('media_id must be a UUID') });

/**
 * The user's own labels (ground truth): the declared label field of custom metadata, kept apart from the model-made
 * `labels` of image tagging. Every change is recorded and can be undone (docs/decisions.md, "The user's labels").
 */
export const classRoutes = {
  list: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/classes',
    tag: 'labels',
    summary: 'The classes of the user’s labels with their counts (what VQL {"ground_truth": …} filters on)',
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Classes', schema: classesSchema } },
    errors: [403, 404],
  }),
  set: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/classes/set',
    tag: 'labels',
    summary: 'Give the selected media a class (label null takes their class off); undoable',
    auth: 'user',
    datasetState: 'service',
    request: {
      params: datasetIdParams,
      body: z.object({ selection: selectionBody, label: labelText('label').nullable() }),
    },
    responses: { 200: { description: 'Done', schema: labelAction } },
    errors: LABEL_WRITE_ERRORS,
  }),
  acceptSuggestions: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/classes/accept_suggestions',
    tag: 'labels',
    summary: 'Give media the label check flagged (issue mislabel) their suggested class: those listed, or all at or above min_score; undoable',
    auth: 'user',
    datasetState: 'service',
    request: {
      params: datasetIdParams,
      body: z.object({
        media_ids: z.array(z.uuid('media_ids must be UUIDs')).min(1, 'media_ids must not be empty').max(10_000).optional(),
        min_score: z
          .number()
          .min(0, 'min_score must be between 0 and 1')
          .max(1, 'min_score must be between 0 and 1')
          .optional()
          .meta({ description: `The least mislabel score accepted: default 0 for the media listed, ${DEFAULT_MIN_SCORE} for all flagged media (bench:label-fixes: on Fashion-MNIST with 10 % flips, 0.95 fixed 59 of 94 flips and broke 16 correct labels; 0.5 fixed 67 and broke 90)` }),
      }),
    },
    responses: { 200: { description: 'Done', schema: labelAction } },
    errors: LABEL_WRITE_ERRORS,
  }),
  undo: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/classes/undo',
    tag: 'labels',
    summary: 'Undo the latest change of classes (a set, an accepted suggestion or a propagation) not undone yet',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams },
    responses: {
      200: {
        description: 'Undone',
        schema: z.object({ action_id: z.uuid(), action: z.string(), undone: z.number().int().meta({ description: 'Media whose class was put back' }) }),
      },
    },
    errors: [403, [404, 'Dataset not found, or no change to undo'], [409, 'The dataset cannot change labels in its status']],
  }),
  history: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/media/:media_id/class_history',
    tag: 'labels',
    summary: 'The class changes of one media item, newest first (at most 100)',
    auth: 'user',
    request: { params: mediaParams },
    responses: {
      200: {
        description: 'Changes',
        schema: z.object({
          changes: z.array(
            z.object({
              action_id: z.uuid(),
              action: z.enum(['set', 'accept', 'propagate', 'undo']),
              field: z.string(),
              previous: z.string().nullable(),
              label: z.string().nullable(),
              undone: z.boolean(),
              created_by: z.string().nullable().meta({ description: 'The email of who made it' }),
              created_at: z.string(),
            }),
          ),
        }),
      },
    },
    errors: [403, [404, 'Dataset or media not found']],
  }),
};
