import { Router } from '@koa/router';
import { issueApiCredential, listApiKeys, revokeApiKey } from '../../services/identity';
import { requireSession, requireSessionOrBearer, type AuthDeps } from '../middleware/authenticate';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { authRoutes } from '../specs/auth';
import { presentApiKey } from '../presenters/apiKey';
import { isoTime } from '../presenters/time';

/**
 * A user's API keys. Minting needs the browser session (a leaked key cannot multiply itself);
 * listing and revoking take the session or a bearer token. Each route's middleware sets the user.
 */
export function createApiCredentialsRouter(deps: AuthDeps): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, authRoutes.apiCredentials, requireSession(deps), async (ctx) => {
    const { api_key, api_secret, expires_at } = await issueApiCredential(
      deps.db,
      deps.secretBox,
      ctx.state.user,
      deps.config.auth.apiKeys,
      ctx.state.input.query.expires_in_days,
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      api_key,
      api_secret,
      message: 'Store the api_secret now: it is shown only once. Sign HS256 JWTs with it (kid and sub = api_key, iss = sdk).',
      expires_at: isoTime(expires_at),
    };
  });

  mount(router, authRoutes.listApiKeys, requireSessionOrBearer(deps), async (ctx) => {
    const { limit, offset, active_only } = ctx.state.input.query;
    const { rows, total } = await listApiKeys(deps.db, ctx.state.user, { limit, offset, liveOnly: active_only });
    const now = new Date();
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { keys: rows.map((row) => presentApiKey(row, now)), total, has_more: offset + rows.length < total };
  });

  mount(router, authRoutes.revokeApiKey, requireSessionOrBearer(deps), async (ctx) => {
    ctx.body = presentApiKey(await revokeApiKey(deps.db, ctx.state.user, ctx.state.input.params.api_key));
  });

  return router;
}
