import { Router } from '@koa/router';
import { issueApiCredential } from '../../services/identity';
import { requireSession, type AuthDeps } from '../middleware/authenticate';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { authRoutes } from '../specs/auth';

/** Session routes only: requireSession sets the user before the handler runs. */
export function createApiCredentialsRouter(deps: AuthDeps): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, authRoutes.apiCredentials, requireSession(deps), async (ctx) => {
    const credential = await issueApiCredential(deps.db, deps.secretBox, ctx.state.user);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      ...credential,
      message: 'Store the api_secret now: it is shown only once. Sign HS256 JWTs with it (kid and sub = api_key, iss = sdk).',
    };
  });

  return router;
}
