import { z } from 'zod';
import { timestamp } from '../presenters/time';
import { defineRoute, type RouteSpec } from '../routeSpec';

const role = z.enum(['admin', 'editor', 'viewer']);
const workspaceId = z.uuid('workspace_id must be a UUID');
const gate: [403, string] = [403, 'Not ONPREM with authentication enabled'];

export const workspaceSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    name: z.string(),
    created_at: timestamp,
    updated_at: timestamp.nullable(),
    permissions: z
      .object({ can_view: z.boolean(), can_manage_members: z.boolean(), can_edit_roles: z.boolean(), can_create_dataset: z.boolean() })
      .nullable()
      .meta({ description: "The caller's permissions in the workspace" }),
  })
  .meta({ id: 'Workspace' });

export const memberSchema = z
  .object({
    user_id: z.uuid(),
    username: z.string(),
    email: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    role,
    created_at: timestamp.meta({ description: 'When the user joined the workspace' }),
  })
  .meta({ id: 'Member' });

export const organizationSchema = z
  .object({ id: z.uuid(), name: z.string(), created_at: timestamp, updated_at: timestamp.nullable() })
  .meta({ id: 'Organization' });

/** Every workspace and organization route: 400 for bad input, as the spec's workspace codes say. */
const workspaceRoute = <const S extends RouteSpec['request']>(spec: Omit<RouteSpec<S>, 'tag' | 'auth' | 'invalidInputStatus'>) =>
  defineRoute<S>({ ...spec, tag: 'workspaces', auth: 'user', invalidInputStatus: 400 });

export const workspaceRoutes = {
  list: workspaceRoute({
    method: 'get',
    path: '/workspaces',
    summary: "The caller's workspaces (self-hosted)",
    request: { query: z.object({ organization_id: z.uuid('organization_id must be a UUID').optional() }) },
    responses: { 200: { description: 'Workspaces', schema: z.object({ workspaces: z.array(workspaceSchema) }) } },
    errors: [gate],
  }),
  get: workspaceRoute({
    method: 'get',
    path: '/workspaces/:workspace_id',
    summary: 'One of the caller\'s workspaces (self-hosted)',
    request: { params: z.object({ workspace_id: workspaceId }) },
    responses: { 200: { description: 'The workspace', schema: workspaceSchema } },
    errors: [gate, [404, 'Workspace not found']],
  }),
  members: workspaceRoute({
    method: 'get',
    path: '/workspace/members',
    summary: "A workspace's members (default: the caller's primary workspace)",
    request: { query: z.object({ workspace_id: workspaceId.optional() }) },
    responses: { 200: { description: 'Members, admins first', schema: z.object({ members: z.array(memberSchema), total: z.number().int() }) } },
    errors: [gate, [404, 'Workspace not found']],
  }),
  changeRole: workspaceRoute({
    method: 'put',
    path: '/workspace/members/:member_user_id/role',
    summary: "Changes a member's role in a workspace (default: the caller's primary one); admins only",
    description:
      'Promoting to admin in single-workspace mode makes every other admin (the caller too) an editor without the admin realm roles; ' +
      'whoever gains or loses the admin role gets or loses the admin realm roles at the identity provider and is logged out there and in the service. ' +
      "Demoting to viewer gives the member's datasets in the workspace to the caller and lowers their owner and editor roles on its datasets to viewer. " +
      'The role a member already has changes nothing.',
    request: {
      params: z.object({ member_user_id: z.uuid('member_user_id must be a UUID') }),
      body: z.object({ role: z.enum(['admin', 'editor', 'viewer'], 'role must be admin, editor or viewer'), workspace_id: workspaceId.optional() }),
    },
    responses: { 200: { description: 'The member with the new role', schema: memberSchema } },
    errors: [
      [400, 'Changing your own role'],
      [403, 'Not ONPREM with authentication enabled, or the caller is not an admin of the workspace'],
      [404, 'Workspace or member not found'],
      [503, 'The identity provider is unreachable (nothing changed)'],
    ],
  }),
  access: workspaceRoute({
    method: 'get',
    path: '/workspace/settings/access',
    summary: 'What the caller may do in a workspace (default: their primary one)',
    request: { query: z.object({ workspace_id: workspaceId.optional() }) },
    responses: { 200: { description: 'Access', schema: z.object({ can_access: z.boolean(), can_manage: z.boolean(), role: role.nullable() }) } },
    errors: [gate],
  }),
  organizations: workspaceRoute({
    method: 'get',
    path: '/organizations',
    summary: "The organizations of the caller's workspaces",
    request: {},
    responses: { 200: { description: 'Organizations', schema: z.object({ organizations: z.array(organizationSchema) }) } },
    errors: [gate],
  }),
  organization: workspaceRoute({
    method: 'get',
    path: '/organizations/:organization_id',
    summary: "One organization of the caller's workspaces",
    request: { params: z.object({ organization_id: z.uuid('organization_id must be a UUID') }) },
    responses: { 200: { description: 'The organization', schema: organizationSchema } },
    errors: [gate, [404, 'Organization not found']],
  }),
};
