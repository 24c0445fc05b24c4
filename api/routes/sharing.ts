import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import { datasetMembers, inviteToDataset } from '../../services/sharing';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { sharingRoutes } from '../specs/sharing';

/** Sharing a dataset with registered accounts (owner only, lib/accessPolicy.ts 'share'). */
export function createSharingRouter(deps: { db: Db }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, sharingRoutes.invite, async (ctx) => {
    const { params, body } = ctx.state.input;
    await inviteToDataset(deps.db, params.dataset_id, ctx.state.user, { email: body.grant_to_user_email, role: body.role });
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = 'null';
  });

  mount(router, sharingRoutes.members, async (ctx) => {
    ctx.body = await datasetMembers(deps.db, ctx.state.input.params.dataset_id, ctx.state.user);
  });

  return router;
}
