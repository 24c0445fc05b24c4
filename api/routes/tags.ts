import { Router } from '@koa/router';
import { z } from 'zod';
import type { Db } from '../../db/connection';
import { createTag, deleteTag, listTags, tagExists, tagMedia, untagMedia, type MediaSelection, type TagRow } from '../../db/repositories/tags';
import { requireDataset } from '../../services/datasetAccess';
import { HttpError } from '../errors';
import { validate } from '../middleware/validate';
import { datasetIdParams } from './datasets';
import { isoTime } from '../presenters/time';

const tagParams = datasetIdParams.extend({ tag_id: z.uuid('tag_id must be a UUID') });
const tagBody = z.object({ name: z.string().trim().min(1, 'name is required').max(100, 'name is at most 100 characters') });
const selectionBody = z
  .object({
    media_ids: z.array(z.uuid('media_ids must be UUIDs')).min(1, 'media_ids must not be empty').max(10_000).optional(),
    cluster_id: z.uuid('cluster_id must be a UUID').optional(),
  })
  .refine((body) => Boolean(body.media_ids) !== Boolean(body.cluster_id), 'give exactly one of media_ids or cluster_id');

const presentTag = (tag: TagRow) => ({ id: tag.id, name: tag.name, created_at: isoTime(tag.created_at), n_media: tag.n_media });
const toSelection = (body: z.output<typeof selectionBody>): MediaSelection =>
  body.media_ids ? { mediaIds: body.media_ids } : { clusterId: body.cluster_id! };

/** Dataset tags (the spec uses tag ids in Explore but does not show how tags are made; see docs/decisions.md). */
export function createTagsRouter(deps: { db: Db }): Router {
  const router = new Router({ prefix: '/dataset/:dataset_id/tags' });

  const requireTag = async (datasetId: string, tagId: string) => {
    if (!(await tagExists(deps.db, datasetId, tagId))) throw new HttpError(404, 'Tag not found');
  };

  router.get('/', validate({ params: datasetIdParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof datasetIdParams> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    ctx.body = { tags: (await listTags(deps.db, params.dataset_id)).map(presentTag) };
  });

  router.post('/', validate({ params: datasetIdParams, body: tagBody }), async (ctx) => {
    const { params, body } = ctx.state.input as { params: z.output<typeof datasetIdParams>; body: z.output<typeof tagBody> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'tag');
    const tag = await createTag(deps.db, params.dataset_id, body.name, ctx.state.user.id);
    if (!tag) throw new HttpError(409, `A tag named "${body.name}" already exists in this dataset`);
    ctx.status = 201;
    ctx.body = presentTag(tag);
  });

  router.delete('/:tag_id', validate({ params: tagParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof tagParams> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'tag');
    if (!(await deleteTag(deps.db, params.dataset_id, params.tag_id))) throw new HttpError(404, 'Tag not found');
    ctx.body = null;
    ctx.status = 200;
  });

  router.post('/:tag_id/media', validate({ params: tagParams, body: selectionBody }), async (ctx) => {
    const { params, body } = ctx.state.input as { params: z.output<typeof tagParams>; body: z.output<typeof selectionBody> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'tag');
    await requireTag(params.dataset_id, params.tag_id);
    ctx.body = { tagged: await tagMedia(deps.db, params.dataset_id, params.tag_id, toSelection(body)) };
  });

  router.delete('/:tag_id/media', validate({ params: tagParams, body: selectionBody }), async (ctx) => {
    const { params, body } = ctx.state.input as { params: z.output<typeof tagParams>; body: z.output<typeof selectionBody> };
    await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'tag');
    await requireTag(params.dataset_id, params.tag_id);
    ctx.body = { untagged: await untagMedia(deps.db, params.dataset_id, params.tag_id, toSelection(body)) };
  });

  return router;
}
