import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { snapshotSchema } from '../presenters/snapshot';
import { acceptedTask } from './acceptedTask';
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
const side = z.union([z.literal('current'), z.literal('head'), z.uuid()], { message: 'a snapshot id, current or head' });
const diffParams = datasetIdParams.extend({ snapshot_id: side, other_id: side });
const diffQuery = z.object({
  limit: z.coerce.number({ message: 'limit must be an integer 1-10000' }).int('limit must be an integer 1-10000').min(1, 'limit must be an integer 1-10000').max(10_000, 'limit must be an integer 1-10000').default(1000),
});
const changes = z.object({ count: z.number().int(), media_ids: z.array(z.uuid()) });
export const snapshotDiffSchema = z
  .object({
    added: changes,
    removed: changes,
    changed: z.object({ captions: changes, labels: changes, tags: changes, issues: changes, custom_metadata: changes }),
  })
  .meta({ id: 'SnapshotDiff' });

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
    datasetState: 'service',
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
    datasetState: 'any',
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
    datasetState: 'any',
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
    datasetState: 'service',
    request: { params: restoreParams },
    responses: { 202: acceptedTask },
    errors: [403, datasetOrSnapshot, [409, 'A task is changing the dataset, or it is not READY']],
  }),
  diff: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/snapshot/:snapshot_id/diff/:other_id',
    tag: 'snapshots',
    summary: 'What changed from one snapshot to another (or to `head`, the data as it is now)',
    description:
      'By media item (images and videos): added, removed, and among those in both, whose caption, labels, tags, issues or custom metadata differ; ' +
      'each part counts them and lists the first `limit` ids.',
    auth: 'user',
    request: { params: diffParams, query: diffQuery },
    responses: { 200: { description: 'The differences', schema: snapshotDiffSchema } },
    errors: [403, datasetOrSnapshot],
  }),
  clone: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/snapshot/:snapshot_id/clone',
    tag: 'snapshots',
    summary: 'Clone a snapshot into a new dataset `<name> (cloned)`: task SNAPSHOT_CLONE',
    auth: 'user',
    datasetState: 'service',
    request: { params: snapshotParams },
    responses: { 202: acceptedTask },
    errors: [403, datasetOrSnapshot],
  }),
};
