import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { booleanParam } from './common';
import { apiKeySchema } from '../presenters/apiKey';
import { timestamp } from '../presenters/time';

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

/** A path of this service to land on after a login (never another site: no scheme, no //host). */
const returnTo = z
  .string()
  .max(2000, 'return_to must be a path of this service')
  .regex(/^\/(?![/\\])[^\s]*$/, 'return_to must be a path of this service')
  .default('/')
  .meta({ description: 'Where the browser lands after the login: a path of this service (default /)' });

const callbackText = (name: string) => z.string({ message: `${name} is required` }).min(1, `${name} is required`).max(4096, `${name} is too long`);
const oidcCallbackQuery = z.object({
  code: callbackText('code').optional(),
  state: callbackText('state'),
  error: z.string().max(200).optional().meta({ description: "The provider's refusal (access_denied, ...)" }),
  error_description: z.string().max(2000).optional(),
  session_state: z.string().max(200).optional(),
  iss: z.string().max(2000).optional(),
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
    errors: [
      [401, 'Invalid email or password'],
      [403, 'Password login is off: this server logs in through its identity provider (GET /api/v1/auth/oidc/login)'],
      [429, 'Too many failed logins (Retry-After tells when to try again)'],
    ],
  }),
  session: defineRoute({
    method: 'get',
    path: '/auth/session',
    tag: 'auth',
    summary: 'Who this browser is signed in as, and how to sign in',
    description:
      'Never 401: user is null without a live session (or the default admin when authentication is disabled). With an identity provider, oidc_login_url starts its login (add ?return_to=/path) and password_login is false.',
    auth: 'none',
    request: {},
    responses: {
      200: {
        description: 'Session and sign-in methods',
        schema: z.object({
          user: z.object({ user_id: z.uuid(), email: z.string() }).nullable(),
          auth_enabled: z.boolean(),
          password_login: z.boolean(),
          oidc_login_url: z.string().nullable(),
        }),
      },
    },
  }),
  oidcLogin: defineRoute({
    method: 'get',
    path: '/auth/oidc/login',
    tag: 'auth',
    summary: 'Start a login at the identity provider (authorization code flow with PKCE)',
    description:
      'ONPREM with DISABLE_AUTH=false and OIDC_ISSUER. Redirects the browser to the provider with state, nonce and an S256 code challenge, kept in a sealed, HttpOnly cookie (OIDC_LOGIN, 10 minutes) for the callback.',
    auth: 'none',
    request: { query: z.object({ return_to: returnTo }) },
    responses: { 302: { description: "Redirect to the provider's login page" } },
    errors: [[404, 'OIDC login is not configured on this server'], [503, 'The identity provider is unreachable']],
  }),
  oidcCallback: defineRoute({
    method: 'get',
    path: '/auth/oidc/callback',
    tag: 'auth',
    summary: 'Where the identity provider returns the browser: checks state, redeems the code, verifies the ID token, sets SESSION',
    description:
      "Checks the state against the browser's OIDC_LOGIN cookie, redeems the code with the PKCE verifier and the client secret, verifies the ID token (issuer's JWKS, audience, expiry, nonce), links or creates the user (by subject, else verified email), then sets the SESSION cookie and redirects to return_to. Failed callbacks count towards the login throttle of the client address.",
    auth: 'none',
    request: { query: oidcCallbackQuery },
    responses: { 302: { description: 'Logged in: redirect to return_to with the SESSION cookie set' } },
    errors: [
      [401, 'Login refused (no login in progress in this browser, state, nonce or ID token not valid, or refused by the provider)'],
      [403, 'The account is disabled'],
      [404, 'OIDC login is not configured on this server'],
      [409, 'The account with this email is linked to another identity'],
      [429, 'Too many failed logins from this address (Retry-After tells when to try again)'],
      [503, 'The identity provider is unreachable'],
    ],
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
          logout_url: z
            .string()
            .optional()
            .meta({ description: "A session of an OIDC login: open this URL in the browser so the identity provider ends its session too; it returns to the service's root" }),
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
    changesState: true,
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
