import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { tagSchema } from '../presenters/tag';
import { datasetIdParams, STALE_MAP_REGION } from './common';
import { selectionBody } from './selection';

const tagParams = datasetIdParams.extend({ tag_id: z.uuid('tag_id must be a UUID') });
const tagBody = z.object({ name: z.string().trim().min(1, 'name is required').max(100, 'name is at most 100 characters') });
export const tagRoutes = {
  list: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/tags',
    tag: 'tags',
    summary: 'Tags of a dataset',
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Tags', schema: z.object({ tags: z.array(tagSchema) }) } },
    errors: [403, 404],
  }),
  create: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/tags',
    tag: 'tags',
    summary: 'Create a tag',
    auth: 'user',
    datasetState: 'curate',
    request: { params: datasetIdParams, body: tagBody },
    responses: { 201: { description: 'Created', schema: tagSchema } },
    errors: [403, 404, [409, 'Name taken in this dataset']],
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/dataset/:dataset_id/tags/:tag_id',
    tag: 'tags',
    summary: 'Delete a tag (from all media)',
    auth: 'user',
    datasetState: 'curate',
    request: { params: tagParams },
    responses: { 200: { description: 'Deleted', schema: z.null() } },
    errors: [403, 404],
  }),
  tagMedia: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/tags/:tag_id/media',
    tag: 'tags',
    summary: 'Tag the selected media (by ids, clusters or filter)',
    auth: 'user',
    datasetState: 'curate',
    request: { params: tagParams, body: selectionBody },
    responses: { 200: { description: 'Tagged', schema: z.object({ tagged: z.number().int() }) } },
    errors: [403, 404, STALE_MAP_REGION],
  }),
  countSelection: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/selection/count',
    tag: 'tags',
    summary: 'Count a selection by kind, before a bulk action on it',
    description:
      'Not in the contract (docs/decisions.md): how many media the selection holds (the union, each once), as images, video frames and videos; ' +
      'a filter (vql) matches images and video frames. A read sent as POST: it changes nothing.',
    auth: 'user',
    datasetState: 'any',
    request: { params: datasetIdParams, body: selectionBody },
    responses: {
      200: {
        description: 'Counted',
        schema: z.object({ total: z.number().int(), images: z.number().int(), video_frames: z.number().int(), videos: z.number().int() }).meta({ id: 'SelectionCount' }),
      },
    },
    errors: [403, 404, STALE_MAP_REGION],
  }),
  untagMedia: defineRoute({
    method: 'delete',
    path: '/dataset/:dataset_id/tags/:tag_id/media',
    tag: 'tags',
    summary: 'Untag the selected media (by ids, clusters or filter)',
    auth: 'user',
    datasetState: 'curate',
    request: { params: tagParams, body: selectionBody },
    responses: { 200: { description: 'Untagged', schema: z.object({ untagged: z.number().int() }) } },
    errors: [403, 404, STALE_MAP_REGION],
  }),
};
