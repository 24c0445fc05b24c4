import { Router } from '@koa/router';
import { createLoginThrottle } from '../../lib/auth/loginThrottle';
import { endAllSessionsAndKeys, endSession, startSession, verifyPasswordLogin } from '../../services/identity';
import { HttpError } from '../errors';
import { requireSession, SESSION_COOKIE, type AuthDeps } from '../middleware/authenticate';
import { mount } from '../routeSpec';
import type { ApiState, RequestState } from '../state';
import { authRoutes } from '../specs/auth';

export function createAuthRouter(deps: AuthDeps): Router<RequestState> {
  const router = new Router<RequestState>();
  // Secure whenever the request came over HTTPS (directly or through a proxy's X-Forwarded-Proto).
  const cookieOptions = (secure: boolean) => ({ httpOnly: true, sameSite: 'lax' as const, secure, path: '/' });
  const throttle = createLoginThrottle(deps.config.auth.login);

  mount(router, authRoutes.login, async (ctx) => {
    const { body } = ctx.state.input;
    const attempt = throttle.begin({ account: body.email.trim().toLowerCase(), ip: ctx.ip });
    if ('retryAfterSeconds' in attempt) {
      ctx.set('Retry-After', String(attempt.retryAfterSeconds));
      throw new HttpError(429, `Too many failed logins: try again in ${attempt.retryAfterSeconds} s`);
    }
    const user = await verifyPasswordLogin(deps.db, body.email, body.password);
    if (!user) throw new HttpError(401, 'Invalid email or password');
    attempt.succeeded();
    const token = await startSession(deps.db, user, deps.config.auth.sessionTtlHours, ctx.ip);
    ctx.cookies.set(SESSION_COOKIE, token, { ...cookieOptions(ctx.secure), maxAge: deps.config.auth.sessionTtlHours * 3600_000 });
    ctx.body = { user_id: user.id, email: user.email };
  });

  // API keys outlive a plain logout (docs/decisions.md); everywhere=true ends every session and revokes every key.
  const sessionRoutes = new Router<ApiState>();
  mount(sessionRoutes, authRoutes.logout, requireSession(deps), async (ctx) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    ctx.cookies.set(SESSION_COOKIE, null, cookieOptions(ctx.secure));
    if (!ctx.state.input.query.everywhere) {
      if (token) await endSession(deps.db, token);
      ctx.body = { message: 'Logged out' };
      return;
    }
    const ended = await endAllSessionsAndKeys(deps.db, ctx.state.user);
    ctx.body = {
      message: `Logged out everywhere: ${ended.sessions} sessions ended, ${ended.apiKeys} API keys revoked`,
      sessions_ended: ended.sessions,
      api_keys_revoked: ended.apiKeys,
    };
  });
  router.use(sessionRoutes.routes(), sessionRoutes.allowedMethods());

  return router;
}
