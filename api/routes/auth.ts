import { Router } from '@koa/router';
import { z } from 'zod';
import { createSession, deleteSession } from '../../db/repositories/sessions';
import { authenticateWithPassword } from '../../db/repositories/users';
import { createLoginThrottle } from '../../lib/auth/loginThrottle';
import { HttpError } from '../errors';
import { requireSession, SESSION_COOKIE, type AuthDeps } from '../middleware/authenticate';
import { validate } from '../middleware/validate';

const loginBody = z.object({
  email: z.string().min(1, 'email is required'),
  password: z.string().min(1, 'password is required'),
});

export function createAuthRouter(deps: AuthDeps): Router {
  const router = new Router({ prefix: '/auth' });
  // Secure whenever the request came over HTTPS (directly or through a proxy's X-Forwarded-Proto).
  const cookieOptions = (secure: boolean) => ({ httpOnly: true, sameSite: 'lax' as const, secure, path: '/' });
  const throttle = createLoginThrottle(deps.config.auth.login);

  router.post('/login', validate({ body: loginBody }), async (ctx) => {
    const { body } = ctx.state.input as { body: z.output<typeof loginBody> };
    const attempt = throttle.begin({ account: body.email.trim().toLowerCase(), ip: ctx.ip });
    if ('retryAfterSeconds' in attempt) {
      ctx.set('Retry-After', String(attempt.retryAfterSeconds));
      throw new HttpError(429, `Too many failed logins: try again in ${attempt.retryAfterSeconds} s`);
    }
    const user = await authenticateWithPassword(deps.db, body.email, body.password);
    if (!user) throw new HttpError(401, 'Invalid email or password');
    attempt.succeeded();
    const token = await createSession(deps.db, user.id, deps.config.auth.sessionTtlHours, ctx.ip);
    ctx.cookies.set(SESSION_COOKIE, token, { ...cookieOptions(ctx.secure), maxAge: deps.config.auth.sessionTtlHours * 3600_000 });
    ctx.body = { user_id: user.id, email: user.email };
  });

  router.post('/logout', requireSession(deps), async (ctx) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    if (token) await deleteSession(deps.db, token);
    ctx.cookies.set(SESSION_COOKIE, null, cookieOptions(ctx.secure));
    ctx.body = { message: 'Logged out' };
  });

  return router;
}
