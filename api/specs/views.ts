import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { viewSchema, viewTrendSchema } from '../presenters/view';
import { datasetIdParams, STALE_MAP_REGION, VQL_DESCRIPTION } from './common';

const viewParams = datasetIdParams.extend({ view_id: z.uuid('view_id must be a UUID') });
const createQuery = z.object({
  entity_type: z.enum(['IMAGES', 'OBJECTS', 'VIDEOS'], { message: 'entity_type must be IMAGES, OBJECTS or VIDEOS' }).default('IMAGES'),
  threshold: z.coerce
    .number({ message: 'threshold must be a number 0-1' })
    .min(0, 'threshold must be a number 0-1')
    .max(1, 'threshold must be a number 0-1')
    .default(0),
  caption: z.string().trim().min(1).optional(),
  vql: z.string().optional().meta({ description: VQL_DESCRIPTION }),
});
/** The form of a new view (multipart or urlencoded). */
export const viewForm = z.object({
  name: z
    .string({ message: 'name is required (form field)' })
    .trim()
    .min(1, 'name is required (form field)')
    .max(255, 'name is at most 255 characters'),
});
const alertingBody = z.object({
  request: z.object({ enabled: z.boolean({ message: 'request.enabled must be a boolean' }) }, { message: 'body must be {"request": {"enabled": true|false}}' }),
});
const renameBody = z.object({ name: viewForm.shape.name });
const notMonitored: [400, string] = [400, 'Monitoring not enabled'];
const datasetOrView: [404, string] = [404, 'Dataset or view not found'];

export const viewRoutes = {
  list: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/views',
    tag: 'views',
    summary: 'Saved views of a dataset',
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Views', schema: z.object({ views: z.array(viewSchema) }) } },
    errors: [403, datasetOrView],
  }),
  create: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/views',
    tag: 'views',
    summary: 'Save a view (monitored from now on)',
    auth: 'user',
    datasetState: 'curate',
    request: { params: datasetIdParams, query: createQuery },
    handlerReads: { form: viewForm },
    responses: { 200: { description: 'View', schema: viewSchema } },
    errors: [403, datasetOrView, STALE_MAP_REGION, [422, 'A malformed query or form, or a name taken in this dataset']],
  }),
  rename: defineRoute({
    method: 'patch',
    path: '/dataset/:dataset_id/views/:view_id',
    tag: 'views',
    summary: 'Rename a view',
    auth: 'user',
    datasetState: 'curate',
    request: { params: viewParams, body: renameBody },
    responses: { 200: { description: 'View', schema: viewSchema } },
    errors: [403, datasetOrView, [422, 'A malformed body, or a name taken in this dataset']],
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/dataset/:dataset_id/views/:view_id',
    tag: 'views',
    summary: 'Delete a view and its trend',
    auth: 'user',
    datasetState: 'curate',
    request: { params: viewParams },
    responses: { 200: { description: 'Deleted', schema: z.null() } },
    errors: [403, datasetOrView],
  }),
  trend: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/views/:view_id/trend',
    tag: 'views',
    summary: 'Trend points of a monitored view',
    auth: 'user',
    request: { params: viewParams },
    responses: { 200: { description: 'Trend', schema: viewTrendSchema } },
    errors: [notMonitored, 403, datasetOrView],
  }),
  alerting: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/views/:view_id/alerting',
    tag: 'views',
    summary: 'Turn alerting on or off (monitoring continues)',
    auth: 'user',
    datasetState: 'curate',
    request: { params: viewParams, body: alertingBody },
    responses: { 200: { description: 'Alerting', schema: z.object({ alerting_enabled: z.boolean() }) } },
    errors: [notMonitored, 403, datasetOrView],
  }),
};
