import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { datasetSchema } from '../presenters/dataset';
import { datasetIdParams, datasetName } from './common';

const renameBody = z.object({ name: datasetName('name', 'name must be a string') });

export const datasetRoutes = {
  get: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id',
    tag: 'datasets',
    summary: 'One dataset',
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Dataset', schema: datasetSchema } },
    errors: [403, 404],
  }),
  rename: defineRoute({
    method: 'patch',
    path: '/dataset/:dataset_id',
    tag: 'datasets',
    summary: 'Rename a dataset',
    auth: 'user',
    datasetState: 'curate',
    request: { params: datasetIdParams, body: renameBody },
    responses: { 200: { description: 'Dataset', schema: datasetSchema } },
    errors: [403, 404, [422, 'A malformed body: name missing, empty or longer than 255 characters']],
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/dataset/:dataset_id',
    tag: 'datasets',
    summary: 'Delete a dataset (owner only): gone from every answer at once, its storage released in the background',
    description:
      'Its versions, snapshots, tasks, views and exports go; the blobs and vectors no other dataset uses (clones keep theirs) are released by the storage collector.',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Deleted (empty body)' } },
    errors: [403, 404, [409, 'A task holds the dataset (INDEXING, READ ONLY) or a task using it still runs']],
  }),
  list: defineRoute({
    method: 'get',
    path: '/datasets',
    tag: 'datasets',
    summary: "The caller's datasets, newest first",
    auth: 'user',
    request: {},
    responses: { 200: { description: 'Datasets', schema: z.array(datasetSchema) } },
  }),
};
