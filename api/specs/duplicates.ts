import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { duplicateReviewSchema } from '../presenters/duplicates';
import { datasetIdParams } from './common';

/** Pairs are stored from this similarity up (lib/quality/neighbourScores.ts): below it nothing is a duplicate. */
const LOWEST_SIMILARITY = 0.9;
const SIMILARITY_MESSAGE = `similarity must be a number from ${LOWEST_SIMILARITY} to 1`;
const similarity = z.coerce.number({ message: SIMILARITY_MESSAGE }).min(LOWEST_SIMILARITY, SIMILARITY_MESSAGE).max(1, SIMILARITY_MESSAGE).default(LOWEST_SIMILARITY);

const reviewQuery = z.object({
  similarity,
  state: z.enum(['open', 'decided', 'all'], { message: 'state must be open, decided or all' }).default('open').meta({
    description: 'open: groups waiting for a decision (changed ones first); decided; or all',
  }),
  page_number: z.coerce.number({ message: 'page_number must be a whole number, 0 or more' }).int('page_number must be a whole number, 0 or more').min(0, 'page_number must be a whole number, 0 or more').default(0),
  page_size: z.coerce.number({ message: 'page_size must be a whole number 1-200' }).int('page_size must be a whole number 1-200').min(1, 'page_size must be a whole number 1-200').max(200, 'page_size must be a whole number 1-200').default(50),
});

const mediaIds = z.array(z.uuid('media ids must be UUIDs'), { message: 'media_ids must be an array of media ids' });
const decisionItem = z.object({
  media_ids: mediaIds.min(2, 'media_ids must name at least 2 images').max(1000, 'media_ids names at most 1,000 images'),
  verdict: z.enum(['duplicates', 'not_duplicates'], { message: 'verdict must be duplicates or not_duplicates' }),
  keep_media_ids: mediaIds.default([]).meta({ description: 'With duplicates: the copies to keep (the others are discarded)' }),
});
const decisionsBody = z.object({
  groups: z.array(decisionItem, { message: 'groups must be an array of decisions' }).min(1, 'groups must not be empty').max(10_000, 'groups holds at most 10,000 decisions'),
});
const acceptBody = z.object({ similarity });
const decisionParams = datasetIdParams.extend({ decision_id: z.uuid('decision_id must be a UUID') });

export const duplicateRoutes = {
  review: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/duplicates',
    tag: 'duplicates',
    summary: 'Near-duplicate image groups with their members, suggested keeper and decision',
    description:
      'Groups join images whose pair similarity is at least `similarity`, and the members of one decision. ' +
      'The suggested keeper is decided from the group\'s own facts when asked: a decodable copy, then the most pixels (the others resized or cropped), ' +
      'a lossless encoding, the most bits per pixel within a format (the others re-encoded at lower quality), the fewest issues of its own pixels ' +
      '(not outliers, a neighbourhood flag that copies make stale), the earliest upload, the first name; in a changed group, the copy kept before.',
    auth: 'user',
    request: { params: datasetIdParams, query: reviewQuery },
    responses: { 200: { description: 'A page of groups', schema: duplicateReviewSchema } },
    errors: [403, 404],
  }),
  decide: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/duplicates/decisions',
    tag: 'duplicates',
    summary: 'Decide groups: keep some copies and discard the rest, or say they are not duplicates',
    description: 'A member decided before is decided anew. Discarded copies are left out of exports unless include_discarded_duplicates is true.',
    auth: 'user',
    request: { params: datasetIdParams, body: decisionsBody },
    responses: { 200: { description: 'Decided', schema: z.object({ decisions: z.array(z.object({ decision_id: z.uuid(), media_ids: z.array(z.uuid()) })) }) } },
    errors: [[403, 'Needs editor access'], 404],
  }),
  acceptSuggestions: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/duplicates/accept_suggestions',
    tag: 'duplicates',
    summary: 'Decide every waiting group with its suggested keeper',
    description: 'Groups with members said to be no duplicates are left for a person; a changed group keeps every copy kept before.',
    auth: 'user',
    request: { params: datasetIdParams, body: acceptBody },
    responses: { 200: { description: 'Decided', schema: z.object({ decided_groups: z.number().int(), discarded_media: z.number().int() }) } },
    errors: [[403, 'Needs editor access'], 404],
  }),
  undo: defineRoute({
    method: 'delete',
    path: '/dataset/:dataset_id/duplicates/decisions/:decision_id',
    tag: 'duplicates',
    summary: 'Undo a decision: its members wait for a decision again',
    auth: 'user',
    request: { params: decisionParams },
    responses: { 200: { description: 'Undone', schema: z.null() } },
    errors: [[403, 'Needs editor access'], [404, 'Dataset or decision not found']],
  }),
};
