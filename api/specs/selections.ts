import { z } from 'zod';
import { STRATEGIES } from '../../lib/selection/chooseItems';
import { defineRoute } from '../routeSpec';
import { datasetIdParams, STALE_MAP_REGION, startedTask, VQL_DESCRIPTION } from './common';
import { selectionVql } from './selection';

const strategyNames = STRATEGIES.join(', ');
const isStrategy = (name: string): name is (typeof STRATEGIES)[number] => (STRATEGIES as readonly string[]).includes(name);

const selectionRequest = z
  .object({
    strategy: z
      .string()
      .refine(isStrategy, { message: `strategy must be one of ${strategyNames}` })
      .optional()
      .meta({ description: `One strategy (${strategyNames}); or give weights` }),
    weights: z
      .record(z.string(), z.number().min(0, 'weights must not be negative').max(1_000_000))
      .refine((weights) => Object.keys(weights).every(isStrategy), { message: `weights may only name ${strategyNames}` })
      .refine((weights) => Object.values(weights).reduce((sum, weight) => sum + weight, 0) > 0, { message: 'weights must not sum to 0' })
      .optional()
      .meta({ description: 'A weighted mix: each strategy takes its share of the budget, in the order strategy lists them, an item once' }),
    n: z.number().int('n must be an integer').min(1, 'n must be at least 1').max(1_000_000, 'n is at most 1,000,000').optional().meta({ description: 'How many to choose' }),
    share: z.number().gt(0, 'share must be above 0').max(1, 'share is at most 1').optional().meta({ description: 'Or which share of the matches to choose' }),
    filter: selectionVql.default([]).meta({ description: `The pool: every image and frame the filters match ("[]", the default, matches all). ${VQL_DESCRIPTION}` }),
    tag: z.string().trim().min(1, 'tag is required').max(100, 'tag is at most 100 characters').meta({ description: 'The name of the new tag the chosen items get' }),
    seed: z.number().int('seed must be an integer').min(0).max(2 ** 31 - 1).default(1).meta({ description: 'The same seed, pool and request choose the same items' }),
    balance: z.boolean().default(false).meta({ description: "Split the budget evenly over the classes of the declared label field (or 10 k-means clusters when there is none)" }),
  })
  .refine((body) => (body.strategy === undefined) !== (body.weights === undefined), { message: 'give strategy or weights (one of them)' })
  .refine((body) => (body.n === undefined) !== (body.share === undefined), { message: 'give n or share (one of them)' })
  .meta({ id: 'SelectionRequest' });

export type SelectionRequestBody = z.output<typeof selectionRequest>;

const picksSchema = z
  .object({
    picks: z.array(
      z.object({
        media_id: z.uuid(),
        score: z.number().meta({ description: "The strategy's score of the item when it was chosen" }),
        reason: z.string().meta({ description: 'Which strategy chose it and why' }),
      }),
    ),
  })
  .meta({ id: 'SelectionPicks' });

export const selectionRoutes = {
  start: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/selections',
    tag: 'tags',
    summary: 'Choose items for labelling by a strategy or a weighted mix of them, as a new tag, in a SELECTION task',
    description:
      'Not in the contract (docs/decisions.md): the task chooses from the embedded images and frames the filter matches, leaving out copies a ' +
      'duplicate review discarded or would discard (exact and near-identical), and writes the tag with each item’s score and reason ' +
      '(GET …/tags/{tag_id}/picks). typicality: the most typical item of each k-means group; representative: greedy facility location on the ' +
      'nearest neighbours; diversity: farthest-point; uniqueness: the analysis’s score; coverage: furthest from the items with a label.',
    auth: 'user',
    datasetState: 'select_items',
    request: { params: datasetIdParams, body: selectionRequest },
    responses: { 202: { description: 'Started; Location names the task', schema: startedTask, headers: { Location: 'The started task: /api/v1/tasks/{task_id}' } } },
    errors: [403, 404, [409, 'The dataset cannot start a selection in its status, the tag exists already, or ' + STALE_MAP_REGION[1]], [422, 'Invalid input, or n above the media the filter matches']],
  }),
  picks: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/tags/:tag_id/picks',
    tag: 'tags',
    summary: 'The items a selection chose for a tag, each with its score and reason (none for a tag applied by hand)',
    auth: 'user',
    request: { params: datasetIdParams.extend({ tag_id: z.uuid('tag_id must be a UUID') }) },
    responses: { 200: { description: 'Picks', schema: picksSchema } },
    errors: [403, 404],
  }),
};
