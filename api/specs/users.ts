import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../routeSpec';

const username = z
  .string({ message: 'username is required' })
  .min(3, 'username must be 3-255 characters')
  .max(255, 'username must be 3-255 characters')
  .regex(/^\S+$/, 'username must not contain whitespace');
const password = z.string({ message: 'password is required' }).min(8, 'password must be at least 8 characters').max(1024, 'password is at most 1024 characters');
const name = (field: string) =>
  z.string({ message: `${field} is required` }).trim().min(1, `${field} must be 1-255 characters`).max(255, `${field} must be 1-255 characters`);

const createBody = z.object(
  {
    username,
    password,
    firstName: name('firstName'),
    lastName: name('lastName'),
    enabled: z.boolean({ message: 'enabled must be a boolean' }).default(true),
    workspace_role: z.enum(['admin', 'editor', 'viewer'], { message: 'workspace_role must be admin, editor or viewer' }).default('viewer'),
  },
  { message: 'body must be a JSON object' },
);

const patchBody = z
  .object(
    {
      username: username.optional(),
      enabled: z.boolean({ message: 'enabled must be a boolean' }).optional(),
    },
    { message: 'body must be a JSON object' },
  )
  .refine((body) => body.username !== undefined || body.enabled !== undefined, { message: 'give username or enabled (at least one)' });
const passwordBody = z.object({ password }, { message: 'body must be {"password": "..."}' });
const rolesBody = z.object(
  { roles: z.array(z.string().max(255, 'a role name is at most 255 characters'), { message: 'roles must be an array of realm role names' }).max(100, 'at most 100 roles') },
  { message: 'body must be {"roles": [...]}' },
);

export const idpSessionSchema = z
  .object({
    id: z.string(),
    username: z.string(),
    ipAddress: z.string(),
    start: z.number().int().meta({ description: 'Epoch-ms' }),
    lastAccess: z.number().int().meta({ description: 'Epoch-ms' }),
    clients: z.record(z.string(), z.string()).meta({ description: 'Client id by client UUID' }),
  })
  .meta({ id: 'IdpSession' });

const listQuery = z.object({
  search: z.string().max(255, 'search is at most 255 characters').optional().meta({ description: 'Filters username, names and email' }),
  max_results: z.coerce
    .number({ message: 'max_results must be an integer 1-1000' })
    .int('max_results must be an integer 1-1000')
    .min(1, 'max_results must be an integer 1-1000')
    .max(1000, 'max_results must be an integer 1-1000')
    .default(100),
  first: z.coerce.number({ message: 'first must be an integer of at least 0' }).int('first must be an integer of at least 0').min(0, 'first must be an integer of at least 0').default(0),
});

const userParams = z.object({
  user_id: z.string().min(1).max(255, 'user_id is an identity-provider id or a service user UUID'),
});

export const managedUserSchema = z
  .object({
    id: z.string().meta({ description: 'Identity-provider user id' }),
    username: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    enabled: z.boolean(),
    createdTimestamp: z.number().int().nullable().meta({ description: 'Epoch-ms' }),
    roles: z.array(z.string()).meta({ description: 'Realm roles' }),
    lastAccess: z.number().int().nullable().meta({ description: "Epoch-ms of the user's latest session activity in the service" }),
  })
  .meta({ id: 'ManagedUser' });

const messageSchema = z.object({ message: z.string() });
const gate: Array<[403, string]> = [[403, 'Not ONPREM with authentication and an identity provider, or the caller lacks the realm role (view-users to read, manage-users to write)']];
const userNotFound: [404, string] = [404, 'User not found'];

/** Every route of the identity provider's admin area: 400 for bad input, as the spec's user-management codes say. */
const userRoute = <const S extends RouteSpec['request']>(spec: Omit<RouteSpec<S>, 'tag' | 'auth' | 'invalidInputStatus'>) =>
  defineRoute<S>({ ...spec, tag: 'users', auth: 'user', invalidInputStatus: 400 });

export const userRoutes = {
  list: userRoute({
    method: 'get',
    path: '/idp/admin/users',
    summary: 'Users of the identity provider, searched and paged',
    request: { query: listQuery },
    responses: { 200: { description: 'Page of users', schema: z.object({ users: z.array(managedUserSchema), total: z.number().int() }) } },
    errors: gate,
  }),
  get: userRoute({
    method: 'get',
    path: '/idp/admin/users/:user_id',
    summary: 'One user, by identity-provider id or service user UUID',
    request: { params: userParams },
    responses: { 200: { description: 'User', schema: managedUserSchema } },
    errors: [...gate, userNotFound],
  }),
  create: userRoute({
    method: 'post',
    path: '/idp/admin/users',
    summary: 'Create a user at the identity provider and in the service (both or neither)',
    description:
      'The user joins the primary workspace with workspace_role; an admin also gets the realm roles manage-users, view-users, query-users and query-groups. A username that is an email address is also the email.',
    request: { body: createBody },
    responses: { 201: { description: 'Created', schema: managedUserSchema } },
    errors: [...gate, [400, 'Bad input, or the username (or its email) exists already']],
  }),
  update: userRoute({
    method: 'patch',
    path: '/idp/admin/users/:user_id',
    summary: 'Change the username or whether the user may log in (a disabled user is logged out)',
    request: { params: userParams, body: patchBody },
    responses: { 200: { description: 'User', schema: managedUserSchema } },
    errors: [[400, 'Bad input, a username that is taken, or disabling your own account'], ...gate, userNotFound],
  }),
  resetPassword: userRoute({
    method: 'post',
    path: '/idp/admin/users/:user_id/reset-password',
    summary: 'Set a temporary password (changed at the next login) and log the user out everywhere',
    request: { params: userParams, body: passwordBody },
    responses: { 200: { description: 'Reset', schema: messageSchema } },
    errors: [...gate, userNotFound],
  }),
  logout: userRoute({
    method: 'post',
    path: '/idp/admin/users/:user_id/logout',
    summary: 'End every session of the user, at the provider and in the service',
    request: { params: userParams },
    responses: { 200: { description: 'Logged out', schema: messageSchema } },
    errors: [...gate, userNotFound],
  }),
  sessions: userRoute({
    method: 'get',
    path: '/idp/admin/users/:user_id/sessions',
    summary: "The user's sessions at the identity provider",
    request: { params: userParams },
    responses: { 200: { description: 'Sessions', schema: z.object({ sessions: z.array(idpSessionSchema), total: z.number().int() }) } },
    errors: [...gate, userNotFound],
  }),
  roles: userRoute({
    method: 'put',
    path: '/idp/admin/users/:user_id/roles',
    summary: 'Replace the realm roles (names that are no realm role are ignored)',
    request: { params: userParams, body: rolesBody },
    responses: { 200: { description: 'User with the new roles', schema: managedUserSchema } },
    errors: [...gate, userNotFound],
  }),
  delete: userRoute({
    method: 'delete',
    path: '/idp/admin/users/:user_id',
    summary: 'Delete a user: datasets go to the deleting admin, then the provider user and the service user are deleted',
    request: { params: userParams },
    responses: { 200: { description: 'Deleted', schema: messageSchema } },
    errors: [[400, 'Bad input, your own account, or the last admin of a workspace'], ...gate, userNotFound],
  }),
};
