import type { Db } from '../connection';
import type { WorkspaceRole } from '../models/Workspace';

export interface WorkspaceRow {
  id: string;
  organization_id: string;
  name: string;
  created_at: Date;
  updated_at: Date | null;
  /** The caller's role in it. */
  role: WorkspaceRole;
}

/** The workspaces `userId` is a member of (optionally of one organization), oldest first. */
export async function memberWorkspaces(db: Db, userId: string, filter: { organizationId?: string; workspaceId?: string } = {}): Promise<WorkspaceRow[]> {
  const query = db('workspaces as w')
    .join('workspace_members as wm', 'wm.workspace_id', 'w.id')
    .where('wm.user_id', userId)
    .orderBy([{ column: 'w.created_at' }, { column: 'w.id' }])
    .select('w.id', 'w.organization_id', 'w.name', 'w.created_at', 'w.updated_at', 'wm.role');
  if (filter.organizationId) query.where('w.organization_id', filter.organizationId);
  if (filter.workspaceId) query.where('w.id', filter.workspaceId);
  return query;
}

export interface MemberRow {
  user_id: string;
  username: string;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  role: WorkspaceRole;
  created_at: Date;
}

/** A workspace's members (or the one member `userId`), admins first, then by username. */
export async function workspaceMembers(db: Db, workspaceId: string, userId?: string): Promise<MemberRow[]> {
  const query = db('workspace_members as wm')
    .join('users as u', 'u.id', 'wm.user_id')
    .where('wm.workspace_id', workspaceId)
    .orderByRaw(`array_position(ARRAY['admin','editor','viewer'], wm.role::text), u.username`)
    .select('wm.user_id', 'u.username', 'u.email', 'u.first_name', 'u.last_name', 'wm.role', 'wm.created_at');
  if (userId) query.where('wm.user_id', userId);
  return query;
}

/** Holds the workspace's row until the transaction ends, so its role changes happen one at a time. */
export async function lockWorkspace(trx: Db, workspaceId: string): Promise<void> {
  await trx('workspaces').where({ id: workspaceId }).forUpdate().select('id');
}

export async function setMemberRole(db: Db, workspaceId: string, userId: string, role: WorkspaceRole): Promise<void> {
  await db('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).update({ role });
}

/** Whether the user is an admin of any workspace. */
export async function isAdminAnywhere(db: Db, userId: string): Promise<boolean> {
  return (await db('workspace_members').where({ user_id: userId, role: 'admin' }).first('workspace_id')) !== undefined;
}

export interface OrganizationRow {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date | null;
}

/** The organizations of the workspaces `userId` is a member of. */
export async function memberOrganizations(db: Db, userId: string, organizationId?: string): Promise<OrganizationRow[]> {
  const query = db('organizations as o')
    .whereExists(db('workspaces as w').join('workspace_members as wm', 'wm.workspace_id', 'w.id').whereRaw('w.organization_id = o.id').where('wm.user_id', userId))
    .orderBy([{ column: 'o.created_at' }, { column: 'o.id' }])
    .select('o.id', 'o.name', 'o.created_at', 'o.updated_at');
  if (organizationId) query.where('o.id', organizationId);
  return query;
}
