import { Router } from '@koa/router';
import { createApiCredential } from '../../db/repositories/apiCredentials';
import { requireSession, type AuthDeps } from '../middleware/authenticate';

export function createApiCredentialsRouter(deps: AuthDeps): Router {
  const router = new Router();

  router.get('/api_credentials', requireSession(deps), async (ctx) => {
    const credential = await createApiCredential(deps.db, deps.secretBox, ctx.state.user.id);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      ...credential,
      message: 'Store the api_secret now: it is shown only once. Sign HS256 JWTs with it (kid and sub = api_key, iss = sdk).',
    };
  });

  return router;
}
