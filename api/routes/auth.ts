import { Router } from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { createLoginThrottle } from '../../lib/auth/loginThrottle';
import { createOidcClient, LOGIN_TTL_MS, OidcLoginError, OidcProviderError, type OidcClient, type PendingLogin } from '../../lib/auth/oidc';
import { SecretBoxError } from '../../lib/auth/secretBox';
import { endAllSessionsAndKeys, endSession, sessionUser, startSession, userFromOidcIdentity, verifyPasswordLogin } from '../../services/identity';
import { beginAttempt } from '../attempts';
import { HttpError, RETRY_AFTER_SECONDS } from '../errors';
import { requireSession, SESSION_COOKIE, type AuthDeps } from '../middleware/authenticate';
import { mount } from '../routeSpec';
import type { ApiState, RequestState } from '../state';
import { authRoutes } from '../specs/auth';

/** Carries a login between the redirect to the identity provider and its callback. */
export const OIDC_LOGIN_COOKIE = 'OIDC_LOGIN';
const CALLBACK_PATH = '/api/v1/auth/oidc/callback';

const pendingLoginSchema = z.object({
  state: z.string(),
  nonce: z.string(),
  codeVerifier: z.string(),
  returnTo: z.string(),
  expiresAt: z.number(),
});

// Secure whenever the request came over HTTPS (directly or through a proxy's X-Forwarded-Proto).
const cookieOptions = (secure: boolean) => ({ httpOnly: true, sameSite: 'lax' as const, secure, path: '/' });

/** The provider's failures as the caller sees them: a refused login 401, an unreachable provider 503. */
async function fromProvider<T>(ctx: Context, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof OidcLoginError) throw new HttpError(401, error.message);
    if (error instanceof OidcProviderError) {
      ctx.state.log?.warn({ err: error }, 'identity provider failed');
      ctx.set('Retry-After', String(RETRY_AFTER_SECONDS));
      throw new HttpError(503, 'The identity provider is unavailable; try again shortly');
    }
    throw error;
  }
}

export function createAuthRouter(deps: AuthDeps): Router<RequestState> {
  const router = new Router<RequestState>();
  const throttle = createLoginThrottle(deps.config.auth.login);
  const oidc: OidcClient | undefined = deps.config.oidc ? createOidcClient(deps.config.oidc) : undefined;
  const callbackUrl = deps.config.publicUrl + CALLBACK_PATH;
  const requireOidc = (): OidcClient => {
    if (!oidc) throw new HttpError(404, 'OIDC login is not configured on this server (RUN_MODE=ONPREM, DISABLE_AUTH=false, OIDC_ISSUER)');
    return oidc;
  };

  mount(router, authRoutes.login, async (ctx) => {
    if (oidc) throw new HttpError(403, 'Password login is off: this server logs in through its identity provider (GET /api/v1/auth/oidc/login)');
    const { body } = ctx.state.input;
    const attempt = beginAttempt(ctx, throttle, body.email.trim().toLowerCase(), 'Too many failed logins');
    const user = await verifyPasswordLogin(deps.db, body.email, body.password);
    if (!user) throw new HttpError(401, 'Invalid email or password');
    attempt.succeeded();
    const token = await startSession(deps.db, user, deps.config.auth.sessionTtlHours, ctx.ip);
    ctx.cookies.set(SESSION_COOKIE, token, { ...cookieOptions(ctx.secure), maxAge: deps.config.auth.sessionTtlHours * 3600_000 });
    ctx.body = { user_id: user.id, email: user.email };
  });

  // What the web app asks first: whom the cookie stands for, and which sign-in to offer.
  mount(router, authRoutes.session, async (ctx) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    const user = deps.config.disableAuth ? deps.defaultUser : token ? (await sessionUser(deps.db, token))?.user : undefined;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      user: user ? { user_id: user.id, email: user.email } : null,
      auth_enabled: !deps.config.disableAuth,
      password_login: !deps.config.disableAuth && !oidc,
      oidc_login_url: oidc ? '/api/v1/auth/oidc/login' : null,
    };
  });

  mount(router, authRoutes.oidcLogin, async (ctx) => {
    const client = requireOidc();
    const { url, pending } = await fromProvider(ctx, () => client.beginLogin(callbackUrl, ctx.state.input.query.return_to));
    ctx.cookies.set(OIDC_LOGIN_COOKIE, deps.secretBox.seal(JSON.stringify(pending)), { ...cookieOptions(ctx.secure), maxAge: LOGIN_TTL_MS });
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(url);
  });

  mount(router, authRoutes.oidcCallback, async (ctx) => {
    const client = requireOidc();
    const { query } = ctx.state.input;
    // Failed callbacks (forged state, replayed codes) count per client address, like failed passwords.
    const attempt = beginAttempt(ctx, throttle, `oidc-callback:${ctx.ip}`, 'Too many failed logins from this address');
    const pending = openPendingLogin(ctx.cookies.get(OIDC_LOGIN_COOKIE));
    ctx.cookies.set(OIDC_LOGIN_COOKIE, null, cookieOptions(ctx.secure));
    if (!pending) throw new HttpError(401, 'No login in progress in this browser: start it at /api/v1/auth/oidc/login');
    if (query.error) throw new HttpError(401, `The identity provider refused the login (${query.error})`);
    if (!query.code) throw new HttpError(401, 'The identity provider returned no code');
    const identity = await fromProvider(ctx, () => client.finishLogin(pending, { code: query.code!, state: query.state }, callbackUrl));
    const user = await userFromOidcIdentity(deps.db, identity);
    attempt.succeeded();
    const token = await startSession(deps.db, user, deps.config.auth.sessionTtlHours, ctx.ip, identity.idToken);
    ctx.cookies.set(SESSION_COOKIE, token, { ...cookieOptions(ctx.secure), maxAge: deps.config.auth.sessionTtlHours * 3600_000 });
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(pending.returnTo);
  });

  /** The pending login sealed in the browser's cookie, if it opens with our key and has the right shape. */
  function openPendingLogin(sealed: string | undefined): PendingLogin | undefined {
    if (!sealed) return undefined;
    try {
      const parsed = pendingLoginSchema.safeParse(JSON.parse(deps.secretBox.open(sealed)));
      return parsed.success ? parsed.data : undefined;
    } catch (error) {
      if (error instanceof SecretBoxError || error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  // API keys outlive a plain logout (docs/decisions.md); everywhere=true ends every session and revokes every key.
  const sessionRoutes = new Router<ApiState>();
  mount(sessionRoutes, authRoutes.logout, requireSession(deps), async (ctx) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    ctx.cookies.set(SESSION_COOKIE, null, cookieOptions(ctx.secure));
    // The provider's session ends when the browser visits its end-session endpoint with the ID token as hint.
    const providerLogout = async (idToken: string | null | undefined) =>
      oidc && idToken ? await fromProvider(ctx, () => oidc.logoutUrl({ idToken, postLogoutRedirectUri: `${deps.config.publicUrl}/` })) : undefined;
    const ended = token ? await endSession(deps.db, token) : undefined;
    const logoutUrl = await providerLogout(ended?.idToken);
    if (!ctx.state.input.query.everywhere) {
      ctx.body = { message: 'Logged out', logout_url: logoutUrl };
      return;
    }
    const others = await endAllSessionsAndKeys(deps.db, ctx.state.user);
    const sessions = others.sessions + (ended ? 1 : 0);
    ctx.body = {
      message: `Logged out everywhere: ${sessions} sessions ended, ${others.apiKeys} API keys revoked`,
      sessions_ended: sessions,
      api_keys_revoked: others.apiKeys,
      logout_url: logoutUrl,
    };
  });
  router.use(sessionRoutes.routes(), sessionRoutes.allowedMethods());

  return router;
}
