import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { datasetSchema } from '../presenters/dataset';
import { datasetIdParams } from './common';

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
