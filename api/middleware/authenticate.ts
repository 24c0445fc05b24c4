import type { Context, Middleware } from 'koa';
import type { Config } from '../../lib/config';
import { InvalidTokenError, verifyApiToken } from '../../lib/auth/apiTokens';
import { SecretBoxError, type SecretBox } from '../../lib/auth/secretBox';
import type { Db } from '../../db/connection';
import type { User } from '../../db/models';
import type { StoredApiCredential } from '../../db/repositories/apiCredentials';
import {
  apiCredentialSecret,
  apiKeyRefusal,
  enabledUser,
  noteApiKeyUse,
  sessionUser,
  type Authentication,
} from '../../services/identity';
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

interface Admitted {
  user: User;
  authentication: Authentication;
}

async function userFromBearer(deps: AuthDeps, ctx: Context, token: string): Promise<Admitted> {
  let credential: StoredApiCredential | undefined;
  let verified: { apiKey: string; expiresAt: Date };
  try {
    verified = await verifyApiToken(
      token,
      async (apiKey) => {
        credential = await apiCredentialSecret(deps.db, deps.secretBox, apiKey).catch((error: unknown) => {
          if (!(error instanceof SecretBoxError)) throw error;
          ctx.state.log?.warn({ api_key: apiKey }, 'stored API secret does not open with this SECRET_KEY (was it changed?)');
          throw new InvalidTokenError('API key is no longer valid: request new credentials');
        });
        return credential?.secret;
      },
      deps.config.auth.tokenMaxLifetimeSeconds,
    );
  } catch (error) {
    if (error instanceof InvalidTokenError) throw unauthorized(ctx, error.message);
    throw error;
  }
  // Only a token signed with the key's secret learns that the key was revoked or has expired.
  const refusal = credential ? apiKeyRefusal(credential) : 'Unknown API key';
  if (refusal) throw unauthorized(ctx, refusal);
  const user = await enabledUser(deps.db, credential!.userId);
  if (!user) throw unauthorized(ctx, 'User is disabled or no longer exists');
  await noteApiKeyUse(deps.db, verified.apiKey, credential!.lastUsedAt);
  return { user, authentication: { kind: 'token', ...verified } };
}

/** The user of the SESSION cookie (cross-site requests never get this far: api/middleware/sameOrigin.ts). */
async function userFromSession(deps: AuthDeps, ctx: Context): Promise<Admitted | undefined> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  return token ? await sessionUser(deps.db, token) : undefined;
}

function admit(ctx: Context, admitted: Admitted): void {
  ctx.state.user = admitted.user;
  ctx.state.authentication = admitted.authentication;
}

function bearerToken(ctx: Context): string | undefined {
  const header = ctx.get('authorization');
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw unauthorized(ctx, 'Authorization header must be "Bearer <token>"');
  return match[1];
}

/**
 * Sets `ctx.state.user` and what admitted it. Auth disabled: the default admin. CLOUD: a Bearer
 * JWT only. ONPREM with auth: a Bearer JWT or the SESSION cookie (browsers, e.g. the notification stream).
 */
export function requireUser(deps: AuthDeps): Middleware {
  return async (ctx, next) => {
    if (deps.config.disableAuth) {
      admit(ctx, { user: deps.defaultUser, authentication: { kind: 'none' } });
      return next();
    }
    const token = bearerToken(ctx);
    if (token) {
      admit(ctx, await userFromBearer(deps, ctx, token));
      return next();
    }
    if (deps.config.runMode === 'ONPREM') {
      const admitted = await userFromSession(deps, ctx);
      if (admitted) {
        admit(ctx, admitted);
        return next();
      }
    }
    throw unauthorized(ctx, 'Not authenticated: send Authorization: Bearer <token>');
  };
}

/** Routes that belong to a logged-in browser session (minting credentials, logout), never to a bearer token. */
export function requireSession(deps: AuthDeps): Middleware {
  return async (ctx, next) => {
    if (deps.config.disableAuth) {
      admit(ctx, { user: deps.defaultUser, authentication: { kind: 'none' } });
      return next();
    }
    const admitted = await userFromSession(deps, ctx);
    if (!admitted) throw unauthorized(ctx, 'A logged-in session (cookie SESSION) is required');
    admit(ctx, admitted);
    return next();
  };
}

/**
 * Routes over a user's own API keys (list, revoke): the browser session that minted them, or a
 * bearer token (an SDK client may list its keys or revoke its own), in every run mode.
 */
export function requireSessionOrBearer(deps: AuthDeps): Middleware {
  return async (ctx, next) => {
    if (deps.config.disableAuth) {
      admit(ctx, { user: deps.defaultUser, authentication: { kind: 'none' } });
      return next();
    }
    const token = bearerToken(ctx);
    const admitted = token ? await userFromBearer(deps, ctx, token) : await userFromSession(deps, ctx);
    if (!admitted) throw unauthorized(ctx, 'Not authenticated: send Authorization: Bearer <token> or the SESSION cookie');
    admit(ctx, admitted);
    return next();
  };
}
