import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { snapshotSchema } from '../presenters/snapshot';
import { datasetIdParams } from './common';

const snapshotParams = datasetIdParams.extend({ snapshot_id: z.uuid('snapshot_id must be a UUID') });
const restoreParams = datasetIdParams.extend({
  snapshot_id: z.union([z.literal('current'), z.uuid()], { message: 'snapshot_id must be a UUID or current' }),
});
const name = z.string().trim().min(1, 'name must not be empty').max(255, 'name is at most 255 characters');
const description = z.string().max(2000, 'description is at most 2000 characters');
const createBody = z.object({ name: name.optional(), description: description.optional() }).strict();
const editBody = z
  .object({ name: name.optional(), description: description.optional() })
  .strict()
  .refine((body) => body.name !== undefined || body.description !== undefined, 'give name, description or both');
const datasetOrSnapshot: [404, string] = [404, 'Dataset or snapshot not found'];

export const snapshotRoutes = {
  list: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/snapshot',
    tag: 'snapshots',
    summary: 'Snapshots of a dataset, newest first',
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Snapshots', schema: z.array(snapshotSchema) } },
    errors: [403, [404, 'Dataset not found']],
  }),
  create: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/snapshot',
    tag: 'snapshots',
    summary: 'Take a snapshot of the dataset as it is now (it becomes the current one)',
    description:
      'The dataset must be READY or PARTIAL INDEX; while a task changes its data the 409 names that task. ' +
      'The name defaults to `<dataset_name>_snapshot_<snapshot_id>`.',
    auth: 'user',
    request: { params: datasetIdParams, body: createBody },
    responses: { 200: { description: 'The snapshot', schema: snapshotSchema } },
    errors: [403, [404, 'Dataset not found'], [409, 'A task is changing the dataset, or it is not READY']],
  }),
  edit: defineRoute({
    method: 'patch',
    path: '/dataset/:dataset_id/snapshot/:snapshot_id',
    tag: 'snapshots',
    summary: "Rename a snapshot or change its description (its data stays as it was)",
    auth: 'user',
    request: { params: snapshotParams, body: editBody },
    responses: { 200: { description: 'The snapshot', schema: snapshotSchema } },
    errors: [403, datasetOrSnapshot],
  }),
  delete: defineRoute({
    method: 'delete',
    path: '/dataset/:dataset_id/snapshot/:snapshot_id',
    tag: 'snapshots',
    summary: 'Delete a snapshot (hidden from every answer; the current one cannot be deleted)',
    auth: 'user',
    request: { params: snapshotParams },
    responses: { 200: { description: 'Deleted (empty body)' } },
    errors: [403, datasetOrSnapshot, [409, 'The current snapshot cannot be deleted']],
  }),
  restore: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/snapshot/:snapshot_id/restore',
    tag: 'snapshots',
    summary: 'Restore a snapshot (an id, or `current`) over the dataset: task SNAPSHOT_RESTORE',
    description: 'The dataset is READ ONLY while it runs (reads answer from the data before the restore) and ends in the status the snapshot was taken in.',
    auth: 'user',
    request: { params: restoreParams },
    responses: { 202: { description: 'Accepted (empty body)' } },
    errors: [403, datasetOrSnapshot, [409, 'A task is changing the dataset, or it is not READY']],
  }),
  clone: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/snapshot/:snapshot_id/clone',
    tag: 'snapshots',
    summary: 'Clone a snapshot into a new dataset `<name> (cloned)`: task SNAPSHOT_CLONE',
    auth: 'user',
    request: { params: snapshotParams },
    responses: { 202: { description: 'Accepted (empty body)' } },
    errors: [403, datasetOrSnapshot],
  }),
};
