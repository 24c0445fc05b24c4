import { z } from 'zod';
import { defineRoute } from '../routeSpec';

const loginBody = z.object({
  email: z.string().min(1, 'email is required'),
  password: z.string().min(1, 'password is required'),
});

export const apiCredentialsSchema = z
  .object({
    api_key: z.string(),
    api_secret: z.string().meta({ description: 'Shown only once' }),
    message: z.string(),
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
    summary: 'End the session',
    auth: 'session',
    request: {},
    responses: { 200: { description: 'Logged out', schema: z.object({ message: z.string() }) } },
  }),
  apiCredentials: defineRoute({
    method: 'get',
    path: '/api_credentials',
    tag: 'auth',
    summary: "New api_key and api_secret for the session's user (secret shown once)",
    description: 'Needs the SESSION cookie, not a bearer token. Sign HS256 JWTs with the secret (kid and sub = api_key, iss = sdk).',
    auth: 'session',
    request: {},
    responses: { 200: { description: 'Credentials', schema: apiCredentialsSchema } },
  }),
};
