import type { Context, Middleware } from 'koa';
import type { Config } from '../../lib/config';
import { InvalidTokenError, verifyApiToken } from '../../lib/auth/apiTokens';
import { SecretBoxError, type SecretBox } from '../../lib/auth/secretBox';
import type { Db } from '../../db/connection';
import type { User } from '../../db/models';
import { apiCredentialSecret, enabledUser, sessionUser } from '../../services/identity';
import { HttpError } from '../errors';

export const SESSION_COOKIE = 'SESSION';

export interface AuthDeps {
  config: Config;
  db: Db;
  secretBox: SecretBox;
  /** The user every request acts as when auth is disabled (ONPREM default). */
  defaultUser: User;
}

function unauthorized(ctx: Context, detail: string): HttpError {
  ctx.set('WWW-Authenticate', 'Bearer');
  return new HttpError(401, detail);
}

async function userFromBearer(deps: AuthDeps, ctx: Context, token: string): Promise<User> {
  let userId: string | undefined;
  try {
    await verifyApiToken(
      token,
      async (apiKey) => {
        const credential = await apiCredentialSecret(deps.db, deps.secretBox, apiKey).catch((error: unknown) => {
          if (!(error instanceof SecretBoxError)) throw error;
          ctx.state.log?.warn({ api_key: apiKey }, 'stored API secret does not open with this SECRET_KEY (was it changed?)');
          throw new InvalidTokenError('API key is no longer valid: request new credentials');
        });
        userId = credential?.userId;
        return credential?.secret;
      },
      deps.config.auth.tokenMaxLifetimeSeconds,
    );
  } catch (error) {
    if (error instanceof InvalidTokenError) throw unauthorized(ctx, error.message);
    throw error;
  }
  const user = userId ? await enabledUser(deps.db, userId) : undefined;
  if (!user) throw unauthorized(ctx, 'User is disabled or no longer exists');
  return user;
}

async function userFromSession(deps: AuthDeps, ctx: Context): Promise<User | undefined> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  return token ? sessionUser(deps.db, token) : undefined;
}

/**
 * Sets `ctx.state.user`. Auth disabled: the default admin. CLOUD: a Bearer JWT only. ONPREM with
 * auth: a Bearer JWT or the SESSION cookie (browsers, e.g. the notification stream).
 */
export function requireUser(deps: AuthDeps): Middleware {
  return async (ctx, next) => {
    if (deps.config.disableAuth) {
      ctx.state.user = deps.defaultUser;
      return next();
    }
    const header = ctx.get('authorization');
    if (header) {
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) throw unauthorized(ctx, 'Authorization header must be "Bearer <token>"');
      ctx.state.user = await userFromBearer(deps, ctx, match[1]);
      return next();
    }
    if (deps.config.runMode === 'ONPREM') {
      const user = await userFromSession(deps, ctx);
      if (user) {
        ctx.state.user = user;
        return next();
      }
    }
    throw unauthorized(ctx, 'Not authenticated: send Authorization: Bearer <token>');
  };
}

/** Routes that belong to a logged-in browser session (credentials, logout), never to a bearer token. */
export function requireSession(deps: AuthDeps): Middleware {
  return async (ctx, next) => {
    if (deps.config.disableAuth) {
      ctx.state.user = deps.defaultUser;
      return next();
    }
    const user = await userFromSession(deps, ctx);
    if (!user) throw unauthorized(ctx, 'A logged-in session (cookie SESSION) is required');
    ctx.state.user = user;
    return next();
  };
}
