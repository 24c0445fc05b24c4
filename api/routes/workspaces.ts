import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import type { MemberRow, OrganizationRow, WorkspaceRow } from '../../db/repositories/workspaces';
import type { Config } from '../../lib/config';
import { createKeycloakAdmin } from '../../lib/identity/keycloakAdmin';
import { realEmail } from '../../services/identity';
import { changeMemberRole } from '../../services/memberRoles';
import { getOrganization, getWorkspace, listMembers, listOrganizations, listWorkspaces, requireSelfHostedAuth, workspaceAccess } from '../../services/workspaces';
import { isoTime } from '../presenters/time';
import { mount } from '../routeSpec';
import { workspaceRoutes } from '../specs/workspaces';
import type { ApiState } from '../state';

const presentWorkspace = (workspace: WorkspaceRow) => ({
  id: workspace.id,
  organization_id: workspace.organization_id,
  name: workspace.name,
  created_at: isoTime(workspace.created_at),
  updated_at: isoTime(workspace.updated_at),
  permissions: {
    can_view: true,
    can_manage_members: workspace.role === 'admin',
    can_edit_roles: workspace.role === 'admin',
    can_create_dataset: workspace.role !== 'viewer',
  },
});

const presentMember = (member: MemberRow) => ({
  user_id: member.user_id,
  username: member.username,
  email: realEmail(member.email),
  firstName: member.first_name,
  lastName: member.last_name,
  role: member.role,
  created_at: isoTime(member.created_at),
});

const presentOrganization = (organization: OrganizationRow) => ({
  id: organization.id,
  name: organization.name,
  created_at: isoTime(organization.created_at),
  updated_at: isoTime(organization.updated_at),
});

/** Workspaces, members and their roles, access settings and organizations (self-hosted; 403 unless ONPREM with auth). */
export function createWorkspacesRouter(deps: { db: Db; config: Config }): Router<ApiState> {
  const router = new Router<ApiState>();
  const { db } = deps;
  // Before validation, as for user management: where these routes do not exist, bad input is a 403 too.
  router.use(['/workspaces', '/workspace', '/organizations'], async (_ctx, next) => {
    requireSelfHostedAuth(deps.config);
    await next();
  });
  const roles = { db, idp: deps.config.oidc ? createKeycloakAdmin(deps.config.oidc) : undefined };

  mount(router, workspaceRoutes.list, async (ctx) => {
    ctx.body = { workspaces: (await listWorkspaces(db, ctx.state.user, ctx.state.input.query.organization_id)).map(presentWorkspace) };
  });

  mount(router, workspaceRoutes.get, async (ctx) => {
    ctx.body = presentWorkspace(await getWorkspace(db, ctx.state.user, ctx.state.input.params.workspace_id));
  });

  mount(router, workspaceRoutes.members, async (ctx) => {
    const members = await listMembers(db, ctx.state.user, ctx.state.input.query.workspace_id);
    ctx.body = { members: members.map(presentMember), total: members.length };
  });

  mount(router, workspaceRoutes.changeRole, async (ctx) => {
    const { params, body } = ctx.state.input;
    ctx.body = presentMember(await changeMemberRole(roles, ctx.state.user, params.member_user_id, body.role, body.workspace_id));
  });

  mount(router, workspaceRoutes.access, async (ctx) => {
    ctx.body = await workspaceAccess(db, ctx.state.user, ctx.state.input.query.workspace_id);
  });

  mount(router, workspaceRoutes.organizations, async (ctx) => {
    ctx.body = { organizations: (await listOrganizations(db, ctx.state.user)).map(presentOrganization) };
  });

  mount(router, workspaceRoutes.organization, async (ctx) => {
    ctx.body = presentOrganization(await getOrganization(db, ctx.state.user, ctx.state.input.params.organization_id));
  });

  return router;
}
