import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { acceptPreviewSchema, acceptResultSchema, decisionsResultSchema, duplicateReviewSchema } from '../presenters/duplicates';
import { datasetIdParams } from './common';
import { DEFAULT_TIERS, DUPLICATE_TIERS, type DuplicateTier } from '../../lib/quality/pixelMatch';

/** Pairs are stored from this similarity up (lib/quality/neighbourScores.ts): below it nothing is a duplicate. */
const LOWEST_SIMILARITY = 0.9;
const SIMILARITY_MESSAGE = `similarity must be a number from ${LOWEST_SIMILARITY} to 1`;
const similarity = z.coerce.number({ message: SIMILARITY_MESSAGE }).min(LOWEST_SIMILARITY, SIMILARITY_MESSAGE).max(1, SIMILARITY_MESSAGE).default(LOWEST_SIMILARITY);

const TIERS_MESSAGE = `tiers must name one or more of ${DUPLICATE_TIERS.join(', ')}, separated by commas`;
const TIERS_DESCRIPTION =
  'Pair tiers that join groups: exact (the same bytes), near_identical (the thumbnails\' pixels confirm the embedding: resized, re-encoded, ' +
  `cropped a little, brightness-shifted) and similar (the embedding alone). Default ${DEFAULT_TIERS.join(',')}`;
const isTier = (value: string): value is DuplicateTier => (DUPLICATE_TIERS as readonly string[]).includes(value);
/** `tiers=exact,near_identical` in a query string. */
const tiersQuery = z
  .string({ message: TIERS_MESSAGE })
  .default(DEFAULT_TIERS.join(','))
  .transform((raw, ctx): DuplicateTier[] => {
    const tiers = raw.split(',').map((tier) => tier.trim());
    if (tiers.length === 0 || !tiers.every(isTier)) {
      ctx.addIssue({ code: 'custom', message: TIERS_MESSAGE });
      return z.NEVER;
    }
    return [...new Set(tiers)];
  })
  .meta({ description: TIERS_DESCRIPTION });
const tiersBody = z
  .array(z.enum(DUPLICATE_TIERS as [DuplicateTier, ...DuplicateTier[]], { message: TIERS_MESSAGE }), { message: TIERS_MESSAGE })
  .min(1, TIERS_MESSAGE)
  .default([...DEFAULT_TIERS])
  .meta({ description: TIERS_DESCRIPTION });

const pageNumber = z.coerce.number({ message: 'page_number must be a whole number, 0 or more' }).int('page_number must be a whole number, 0 or more').min(0, 'page_number must be a whole number, 0 or more').default(0);
const pageSize = z.coerce.number({ message: 'page_size must be a whole number 1-200' }).int('page_size must be a whole number 1-200').min(1, 'page_size must be a whole number 1-200').max(200, 'page_size must be a whole number 1-200').default(50);
const MEMBERS_MESSAGE = 'members_limit must be a whole number 1-1000';

const reviewQuery = z.object({
  similarity,
  tiers: tiersQuery,
  state: z.enum(['open', 'decided', 'all'], { message: 'state must be open, decided or all' }).default('open').meta({
    description: 'open: groups waiting for a decision (changed ones first); decided; or all',
  }),
  page_number: pageNumber,
  page_size: pageSize,
  members_limit: z.coerce.number({ message: MEMBERS_MESSAGE }).int(MEMBERS_MESSAGE).min(1, MEMBERS_MESSAGE).max(1000, MEMBERS_MESSAGE).default(100).meta({
    description: "Members shown per group, the suggested keeper first (member_count says how many there are)",
  }),
});
const previewQuery = z.object({ similarity, tiers: tiersQuery, page_number: pageNumber, page_size: pageSize });

const mediaIds = z.array(z.uuid('media ids must be UUIDs'), { message: 'media_ids must be an array of media ids' });
const decisionItem = z.object({
  media_ids: mediaIds.min(2, 'media_ids must name at least 2 images or videos').max(1000, 'media_ids names at most 1,000 images or videos'),
  verdict: z.enum(['duplicates', 'not_duplicates'], { message: 'verdict must be duplicates or not_duplicates' }),
  keep_media_ids: mediaIds.default([]).meta({ description: 'With duplicates: the copies to keep (the others are discarded)' }),
});
const decisionsBody = z.object({
  groups: z.array(decisionItem, { message: 'groups must be an array of decisions' }).min(1, 'groups must not be empty').max(10_000, 'groups holds at most 10,000 decisions'),
});
const COUNT_MESSAGE = (field: string) => `${field} must be a whole number, 0 or more`;
const count = (field: string) => z.number({ message: COUNT_MESSAGE(field) }).int(COUNT_MESSAGE(field)).min(0, COUNT_MESSAGE(field)).optional();
const acceptBody = z.object({
  similarity,
  tiers: tiersBody,
  preview_token: z.string({ message: 'preview_token must be the token a preview gave' }).regex(/^[0-9a-f]{32}$/, 'preview_token must be the token a preview gave').optional().meta({
    description: 'The preview this Accept all confirms: refused (409) if what it would decide changed since',
  }),
  expected_discarded_media: count('expected_discarded_media').meta({ description: 'Refused (409) unless it would discard exactly this many copies' }),
  max_discarded_media: count('max_discarded_media').meta({ description: 'Refused (409) if it would discard more copies than this' }),
});
const actionParams = datasetIdParams.extend({ action_id: z.uuid('action_id must be a UUID') });
const decisionParams = datasetIdParams.extend({ decision_id: z.uuid('decision_id must be a UUID') });

export const duplicateRoutes = {
  review: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/duplicates',
    tag: 'duplicates',
    summary: 'Near-duplicate image and video groups with their members, suggested keeper and decision',
    description:
      'Groups join images whose pair similarity is at least `similarity` in the tiers asked for (exact and near-identical unless ' +
      '`tiers` says otherwise; each pair says its tier and why), and the members of one decision. Videos are grouped with videos: the same bytes, ' +
      'or one clip (re-encoded, resized, trimmed or behind another intro) when at least half of the shorter one\'s sampled frames, and 3 or more, ' +
      'pair with the other\'s in order at one time shift; a discarded video\'s frames go with it. ' +
      'The suggested keeper is decided from the group\'s own facts when asked: a decodable copy, then the most pixels (the others resized or cropped), ' +
      'a lossless encoding, the least edited (the copy nearest to every other copy: the others carry an overlay or a brightness change), the most bits per pixel within a format (the others re-encoded at lower quality), the fewest issues of its own pixels ' +
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
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams, body: decisionsBody },
    description:
      'A member decided before is decided anew. Discarded copies are left out of exports unless include_discarded_duplicates is true. ' +
      'Each keeper gains the labels, tags and custom metadata fields of the discarded copies that it lacks; a value they disagree on ' +
      '(a class or another field) is not chosen: the keeper keeps its own and the conflict is listed. An undo takes the gains back.',
    responses: { 200: { description: 'Decided', schema: decisionsResultSchema } },
    errors: [[403, 'Needs editor access'], 404, [409, 'The dataset is not READY or PARTIAL INDEX']],
  }),
  acceptSuggestions: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/duplicates/accept_suggestions',
    tag: 'duplicates',
    summary: 'Decide every waiting group with its suggested keeper',
    description:
      'Groups with members said to be no duplicates are left for a person; a changed group keeps every copy kept before. ' +
      'Keepers gain what the discarded copies carry, as with a decision. One action: DELETE …/duplicates/actions/{action_id} undoes it whole. ' +
      'Send the preview_token of GET …/accept_suggestions/preview (or expected_discarded_media, or a cap) to have it refused if the groups changed since.',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams, body: acceptBody },
    responses: { 200: { description: 'Decided', schema: acceptResultSchema } },
    errors: [[403, 'Needs editor access'], 404, [409, 'The groups changed since the preview, the count or cap is not met, or the dataset is not READY or PARTIAL INDEX']],
  }),
  previewAccept: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/duplicates/accept_suggestions/preview',
    tag: 'duplicates',
    summary: 'What Accept all would decide: the groups, the copies it keeps and discards, a page at a time',
    auth: 'user',
    request: { params: datasetIdParams, query: previewQuery },
    responses: { 200: { description: 'A page of the plan', schema: acceptPreviewSchema } },
    errors: [403, 404],
  }),
  undoAction: defineRoute({
    method: 'delete',
    path: '/dataset/:dataset_id/duplicates/actions/:action_id',
    tag: 'duplicates',
    summary: 'Undo an Accept all: every decision it made, and what they merged into keepers',
    auth: 'user',
    datasetState: 'service',
    request: { params: actionParams },
    responses: { 200: { description: 'Undone', schema: z.object({ undone_decisions: z.number().int() }) } },
    errors: [[403, 'Needs editor access'], [404, 'Dataset or action not found'], [409, 'The dataset is not READY or PARTIAL INDEX']],
  }),
  undo: defineRoute({
    method: 'delete',
    path: '/dataset/:dataset_id/duplicates/decisions/:decision_id',
    tag: 'duplicates',
    summary: 'Undo a decision: its members wait for a decision again, and its keepers lose what it merged into them',
    auth: 'user',
    datasetState: 'service',
    request: { params: decisionParams },
    responses: { 200: { description: 'Undone', schema: z.null() } },
    errors: [[403, 'Needs editor access'], [404, 'Dataset or decision not found'], [409, 'The dataset is not READY or PARTIAL INDEX']],
  }),
};
