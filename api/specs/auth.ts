import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { apiKeySchema } from '../presenters/apiKey';
import { timestamp } from '../presenters/time';

const booleanParam = (name: string) =>
  z.enum(['true', 'false', '1', '0'], { message: `${name} must be true or false` }).transform((value) => value === 'true' || value === '1');

/** The longest lifetime a caller may ask for; the server's API_KEY_TTL_DAYS may allow less. */
export const MAX_KEY_LIFETIME_DAYS = 3650;
const lifetimeMessage = `expires_in_days must be a whole number of days from 1 to ${MAX_KEY_LIFETIME_DAYS}`;
const credentialsQuery = z.object({
  expires_in_days: z.coerce
    .number({ message: lifetimeMessage })
    .int(lifetimeMessage)
    .min(1, lifetimeMessage)
    .max(MAX_KEY_LIFETIME_DAYS, lifetimeMessage)
    .optional()
    .meta({ description: "Days until the key expires; default and upper bound: the server's API_KEY_TTL_DAYS (90 unless changed; 0 there: no default expiry)" }),
});

const keyListQuery = z.object({
  limit: z.coerce.number({ message: 'limit must be an integer' }).int('limit must be an integer').min(1, 'limit must be between 1 and 100').max(100, 'limit must be between 1 and 100').default(100),
  offset: z.coerce.number({ message: 'offset must be an integer' }).int('offset must be an integer').min(0, 'offset must be 0 or more').default(0),
  active_only: booleanParam('active_only').default(false).meta({ description: 'Only keys that are neither revoked nor expired' }),
});

const apiKeyParams = z.object({
  api_key: z.string().regex(/^ak_[A-Za-z0-9_-]{1,64}$/, 'api_key must be an API key (ak_...)'),
});

const logoutQuery = z.object({
  everywhere: booleanParam('everywhere')
    .default(false)
    .meta({ description: "End every session of the user (this one too) and revoke all their API keys" }),
});

const loginBody = z.object({
  email: z.string().min(1, 'email is required'),
  password: z.string().min(1, 'password is required'),
});

export const apiCredentialsSchema = z
  .object({
    api_key: z.string(),
    api_secret: z.string().meta({ description: 'Shown only once' }),
    message: z.string(),
    expires_at: timestamp.nullable().meta({ description: 'When the key stops working; null: never' }),
  })
  .meta({ id: 'ApiCredentials' });

export const authRoutes = {
  login: defineRoute({
    method: 'post',
    path: '/auth/login',
    tag: 'auth',
    summary: 'Log in with a password; sets the SESSION cookie',
    auth: 'none',
    request: { body: loginBody },
    responses: { 200: { description: 'Logged in', schema: z.object({ user_id: z.uuid(), email: z.string() }) } },
    errors: [[401, 'Invalid email or password'], [429, 'Too many failed logins (Retry-After tells when to try again)']],
  }),
  logout: defineRoute({
    method: 'post',
    path: '/auth/logout',
    tag: 'auth',
    summary: 'End the session, or (everywhere=true) every session and API key of the user',
    description:
      'API keys outlive a plain logout, like personal access tokens. With everywhere=true all sessions of the user end and all their API keys are revoked; open notification streams close at their next keepalive.',
    auth: 'session',
    request: { query: logoutQuery },
    responses: {
      200: {
        description: 'Logged out',
        schema: z.object({
          message: z.string(),
          sessions_ended: z.number().int().optional().meta({ description: 'With everywhere=true' }),
          api_keys_revoked: z.number().int().optional().meta({ description: 'With everywhere=true' }),
        }),
      },
    },
  }),
  apiCredentials: defineRoute({
    method: 'get',
    path: '/api_credentials',
    tag: 'auth',
    summary: "New api_key and api_secret for the session's user (secret shown once)",
    description:
      'Needs the SESSION cookie, not a bearer token. Sign HS256 JWTs with the secret (kid and sub = api_key, iss = sdk). The key expires after expires_in_days or the server default; a user holds at most API_KEY_MAX_PER_USER live keys (20 unless changed).',
    auth: 'session',
    request: { query: credentialsQuery },
    responses: { 200: { description: 'Credentials', schema: apiCredentialsSchema } },
    errors: [[409, 'The user already holds the most live API keys allowed: revoke one first']],
  }),
  listApiKeys: defineRoute({
    method: 'get',
    path: '/api_credentials/keys',
    tag: 'auth',
    summary: "The caller's API keys, newest first (never their secrets)",
    description: 'Accepts the SESSION cookie or a bearer token, in every run mode.',
    auth: 'sessionOrToken',
    request: { query: keyListQuery },
    responses: {
      200: {
        description: 'Page of keys',
        schema: z.object({ keys: z.array(apiKeySchema), total: z.number().int(), has_more: z.boolean() }),
      },
    },
  }),
  revokeApiKey: defineRoute({
    method: 'delete',
    path: '/api_credentials/keys/:api_key',
    tag: 'auth',
    summary: "Revoke one of the caller's API keys",
    description:
      'Accepts the SESSION cookie or a bearer token (a key may revoke itself). Tokens of the key get 401 "API key revoked" from then on; notification streams it opened close at their next keepalive. Revoking a revoked key answers it unchanged.',
    auth: 'sessionOrToken',
    request: { params: apiKeyParams },
    responses: { 200: { description: 'The revoked key', schema: apiKeySchema } },
    errors: [[404, "No such key of the caller's (unknown, or another user's)"]],
  }),
};
