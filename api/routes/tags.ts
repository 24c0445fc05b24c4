import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import { requireDataset } from '../../services/datasetAccess';
import { addTag, countSelection, listDatasetTags, removeTag, tagSelection, untagSelection } from '../../services/tags';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { presentTag } from '../presenters/tag';
import { toMediaSelection } from '../specs/selection';
import { tagRoutes } from '../specs/tags';

/** Dataset tags (the spec uses tag ids in Explore but does not show how tags are made; see docs/decisions.md). */
export function createTagsRouter(deps: { db: Db }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, tagRoutes.list, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id);
    ctx.body = { tags: (await listDatasetTags(deps.db, dataset)).map(presentTag) };
  });

  mount(router, tagRoutes.create, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'tag');
    const tag = await addTag(deps.db, dataset, ctx.state.user, body.name);
    ctx.status = 201;
    ctx.body = presentTag(tag);
  });

  mount(router, tagRoutes.delete, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'tag');
    await removeTag(deps.db, dataset, params.tag_id);
    ctx.body = null;
    ctx.status = 200;
  });

  mount(router, tagRoutes.tagMedia, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'tag');
    ctx.body = { tagged: await tagSelection(deps.db, dataset, params.tag_id, toMediaSelection(body)) };
  });

  mount(router, tagRoutes.countSelection, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    ctx.body = await countSelection(deps.db, dataset, toMediaSelection(body));
  });

  mount(router, tagRoutes.untagMedia, async (ctx) => {
    const { params, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'tag');
    ctx.body = { untagged: await untagSelection(deps.db, dataset, params.tag_id, toMediaSelection(body)) };
  });

  return router;
}
