import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import { createLoginThrottle, type LoginThrottleSettings } from '../../lib/auth/loginThrottle';
import { datasetMembers, inviteToDataset } from '../../services/sharing';
import { beginAttempt } from '../attempts';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { sharingRoutes } from '../specs/sharing';

/**
 * Sharing a dataset with registered accounts (owner only, lib/accessPolicy.ts 'share'). The contract's
 * 404 for an unregistered email tells an inviter who has an account, so failed invitations count per
 * inviter and address like failed logins (LOGIN_* settings): probing many emails is locked out with 429.
 */
export function createSharingRouter(deps: { db: Db; config: { auth: { login: LoginThrottleSettings } } }): Router<ApiState> {
  const router = new Router<ApiState>();
  const throttle = createLoginThrottle(deps.config.auth.login);

  mount(router, sharingRoutes.invite, async (ctx) => {
    const { params, body } = ctx.state.input;
    const attempt = beginAttempt(ctx, throttle, ctx.state.user.id, 'Too many failed invitations');
    await inviteToDataset(deps.db, params.dataset_id, ctx.state.user, { email: body.grant_to_user_email, role: body.role });
    attempt.succeeded();
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.body = 'null';
  });

  mount(router, sharingRoutes.members, async (ctx) => {
    ctx.body = await datasetMembers(deps.db, ctx.state.input.params.dataset_id, ctx.state.user);
  });

  return router;
}
