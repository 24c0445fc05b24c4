import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { clusteringThreshold } from '../searchParams';
import { datasetIdParams, STALE_MAP_REGION, VQL_DESCRIPTION } from './common';
import { selectionVql } from './selection';

/** Points of one binary page: 1,000,000 points are 11 MB. */
export const MAP_PAGE_LIMIT = 1_000_000;
/** Points one selection request may name. */
export const MAP_SELECTION_LIMIT = 100_000;

const threshold = clusteringThreshold.default(0).meta({ description: 'Clustering threshold whose clusters colour the map' });
/** Point indexes are Postgres integers. */
const MAX_INDEX = 2_147_483_647;

/**
 * A whole number (0 or more, or 1-`max`): a JSON number in a body, decimal digits in a query string; never `true`,
 * `"0x10"` or anything past a Postgres integer.
 */
const wholeNumber = (name: string, max?: number, from: 'query' | 'body' = 'query') => {
  const message = max === undefined ? `${name} must be a whole number, 0 or more` : `${name} must be a whole number 1-${max.toLocaleString('en')}`;
  const number = z
    .number({ message })
    .int(message)
    .min(max === undefined ? 0 : 1, message)
    .max(max ?? MAX_INDEX, max === undefined ? `${name} must be at most ${MAX_INDEX.toLocaleString('en')}` : message);
  // A query's decimal digits become the number; anything else reaches the number's own checks and is refused.
  return from === 'body' ? number : z.preprocess((value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value), number);
};

const legendEntry = { index: z.number().int().meta({ description: 'The colour index points of this category carry' }), count: z.number().int() };
export const mapSchema = z.object({
  layout_id: z.uuid().nullable().meta({ description: 'The full layout point indexes belong to; null before the first analysis' }),
  count: z.number().int().meta({ description: 'Points on the map, indexed 0 … count-1' }),
  unplaced: z.number().int().meta({ description: 'Embedded images and frames not on the map yet (added media no neighbour placed; a reindex places them)' }),
  bounds: z.object({ min_x: z.number(), max_x: z.number(), min_y: z.number(), max_y: z.number() }).nullable(),
  threshold: z.number().int(),
  page_limit: z.number().int(),
  layout_status: z.enum(['ready', 'laying_out', 'failed']).meta({
    description:
      '`laying_out` while the map is laid out after an analysis (a MAP_LAYOUT task, started once the dataset is READY): the points are the previous layout’s, or none before the first; ' +
      '`failed` when that task failed (a reindex lays it out again); `ready` otherwise',
  }),
  layout_task_id: z.uuid().nullable().meta({ description: 'The MAP_LAYOUT task laying the map out (GET /tasks/{id}), while one is due' }),
  layout_error: z.string().nullable().meta({ description: 'Why the layout failed, when layout_status is failed' }),
  legends: z.object({
    cluster: z.array(z.object({ ...legendEntry, cluster_id: z.uuid() })).meta({ description: 'The largest clusters at the threshold; 0 is every other cluster' }),
    label: z.array(z.object({ ...legendEntry, label: z.string() })).meta({ description: 'The most common labels; 0 is no label or another one' }),
    issue: z.array(z.object({ ...legendEntry, issue_type: z.string() })).meta({ description: 'The most common issues; 0 is none or another one' }),
    class: z
      .array(z.object({ ...legendEntry, label: z.string() }))
      .meta({ description: 'The most common classes (the user’s own labels, GET …/classes); 0 is none or another one; empty without a label field' }),
  }),
}).meta({ id: 'DatasetMap' });

export const mapRoutes = {
  map: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/map',
    tag: 'map',
    summary: 'The dataset map: how many points, where they lie and what each colour means',
    description:
      'Every embedded image and video frame has a 2D point laid out from its embedding after the dataset is analysed (creation, reindex: a MAP_LAYOUT task once the dataset is READY, `layout_status` says while; added media are placed from their neighbours). ' +
      'Points come from `GET …/map/points` in pages; lassoed point indexes become media ids through `POST …/map/selection`.',
    auth: 'user',
    request: { params: datasetIdParams, query: z.object({ threshold }) },
    responses: { 200: { description: 'The map', schema: mapSchema } },
    errors: [403, 404, [409, 'The dataset is not in a status that can be searched']],
  }),
  points: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/map/points',
    tag: 'map',
    summary: 'A page of map points, binary',
    description:
      'Points offset … offset+limit-1 in index order, as columns of n = the `X-Map-Points` header: x (n little-endian Float32), y (n Float32), ' +
      'then the cluster, label, issue and class colour of each point (n Uint8 each; 1 + its place in the legend of `GET …/map` with the same threshold, 0 for none). ' +
      '`X-Map-Total` is the number of points on the map (a client can page on without `GET …/map`); `X-Map-Layout-Id` names the layout the indexes belong to. ' +
      'An `ETag` names the page\'s content (layout, points, legends): asked with `If-None-Match` and unchanged, the answer is 304 without reading a point.',
    auth: 'user',
    request: {
      params: datasetIdParams,
      query: z.object({
        threshold,
        offset: wholeNumber('offset').default(0),
        limit: wholeNumber('limit', MAP_PAGE_LIMIT).default(MAP_PAGE_LIMIT),
      }),
    },
    responses: { 200: { description: 'The page', contentType: 'application/octet-stream', schema: z.string().meta({ format: 'binary' }) } },
    errors: [403, 404, [409, 'The dataset is not in a status that can be searched']],
  }),
  matches: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/map/matches',
    tag: 'map',
    summary: "Which map points pass Explore's filters, binary",
    description:
      "Not in the contract: the map shows Explore's filters (its VQL) by marking the points whose media pass them. " +
      'A bitmap of `X-Map-Total` bits, point i is bit i % 8 (least significant first) of byte i / 8; `X-Map-Matches` counts the points that pass, ' +
      '`X-Map-Layout-Id` names the layout the indexes belong to (the points of `GET …/map/points` with the same layout id).',
    auth: 'user',
    request: {
      params: datasetIdParams,
      query: z.object({ vql: selectionVql.meta({ description: `The filters, as Explore takes them (row predicates: a semantic text search ranks media, it selects none). ${VQL_DESCRIPTION}` }) }),
    },
    responses: { 200: { description: 'The bitmap', contentType: 'application/octet-stream', schema: z.string().meta({ format: 'binary' }) } },
    errors: [403, 404, [409, 'The dataset is not in a status that can be searched'], STALE_MAP_REGION, [422, 'Invalid VQL']],
  }),
  selection: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/map/selection',
    tag: 'map',
    summary: 'The media ids of map points (a lasso selection), in the order given',
    auth: 'user',
    datasetState: 'any',
    request: {
      params: datasetIdParams,
      body: z.object({
        layout_id: z.uuid('layout_id must be the layout_id of GET …/map'),
        indices: z
          .array(wholeNumber('each index', undefined, 'body'), { message: 'indices must be an array of point indexes' })
          .min(1, 'indices must not be empty')
          .max(MAP_SELECTION_LIMIT, `indices names at most ${MAP_SELECTION_LIMIT.toLocaleString('en')} points`),
      }),
    },
    responses: { 200: { description: 'The media ids', schema: z.object({ media_ids: z.array(z.uuid()) }) } },
    errors: [403, 404, [409, 'The map was laid out anew since (load it again), or the dataset cannot be searched in its status'], [422, 'An index without a point']],
  }),
};
