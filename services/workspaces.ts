import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { primaryWorkspaceRole } from '../db/repositories/users';
import { memberOrganizations, memberWorkspaces, workspaceMembers, type MemberRow, type OrganizationRow, type WorkspaceRow } from '../db/repositories/workspaces';
import { forbidden, notFound } from '../lib/errors';

/**
 * Workspaces, members, access settings and organizations (self-hosted): they exist only with
 * RUN_MODE=ONPREM and authentication on (403 otherwise, as the spec says). A caller sees the
 * workspaces they are a member of and those workspaces' organizations; any other id is 404.
 */
export function requireSelfHostedAuth(settings: { runMode: 'CLOUD' | 'ONPREM'; disableAuth: boolean }): void {
  if (settings.runMode !== 'ONPREM' || settings.disableAuth) throw forbidden('Workspaces exist only with RUN_MODE=ONPREM and authentication enabled');
}

export const workspaceNotFound = () => notFound('Workspace not found');

/** The workspace a request names, or else the caller's primary one (undefined when they have none). */
export async function namedOrPrimaryWorkspaceId(db: Db, user: User, workspaceId?: string): Promise<string | undefined> {
  return workspaceId ?? (await primaryWorkspaceRole(db, user.id))?.workspaceId;
}

/** The workspace `workspaceId` of the caller, or their primary one. */
export async function requireWorkspace(db: Db, user: User, workspaceId?: string): Promise<WorkspaceRow> {
  const id = await namedOrPrimaryWorkspaceId(db, user, workspaceId);
  const [workspace] = id ? await memberWorkspaces(db, user.id, { workspaceId: id }) : [];
  if (!workspace) throw workspaceNotFound();
  return workspace;
}

export function listWorkspaces(db: Db, user: User, organizationId?: string): Promise<WorkspaceRow[]> {
  return memberWorkspaces(db, user.id, { organizationId });
}

export function getWorkspace(db: Db, user: User, workspaceId: string): Promise<WorkspaceRow> {
  return requireWorkspace(db, user, workspaceId);
}

export async function listMembers(db: Db, user: User, workspaceId?: string): Promise<MemberRow[]> {
  return workspaceMembers(db, (await requireWorkspace(db, user, workspaceId)).id);
}

/** What the caller may do in a workspace; a workspace they are not in is no error here, just no access. */
export async function workspaceAccess(db: Db, user: User, workspaceId?: string): Promise<{ can_access: boolean; can_manage: boolean; role: WorkspaceRow['role'] | null }> {
  const id = await namedOrPrimaryWorkspaceId(db, user, workspaceId);
  const [workspace] = id ? await memberWorkspaces(db, user.id, { workspaceId: id }) : [];
  return { can_access: Boolean(workspace), can_manage: workspace?.role === 'admin', role: workspace?.role ?? null };
}

export function listOrganizations(db: Db, user: User): Promise<OrganizationRow[]> {
  return memberOrganizations(db, user.id);
}

export async function getOrganization(db: Db, user: User, organizationId: string): Promise<OrganizationRow> {
  const [organization] = await memberOrganizations(db, user.id, organizationId);
  if (!organization) throw notFound('Organization not found');
  return organization;
}
