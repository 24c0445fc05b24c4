import type { Db } from '../db/connection';
import type { User, WorkspaceRole } from '../db/models';
import { lowerDatasetRolesToViewer, transferOwnedDatasets } from '../db/repositories/datasets';
import { findUserById, isSingleWorkspace, setRealmRoles } from '../db/repositories/users';
import { isAdminAnywhere, lockWorkspace, setMemberRole, workspaceMembers, type MemberRow } from '../db/repositories/workspaces';
import type { KeycloakAdmin } from '../lib/identity/keycloakAdmin';
import { forbidden, invalid, notFound } from '../lib/errors';
import { applyAdminRoleChanges, demoteOtherAdminsOf, withAdminRealmRoles, type AdminRoleChange } from './adminRealmRoles';
import { namedOrPrimaryWorkspaceId, requireWorkspace, workspaceNotFound } from './workspaces';

/** Where roles live: the service's database and, with a provider, its realm roles. */
export interface MemberRoleDeps {
  db: Db;
  idp?: KeycloakAdmin;
}

/**
 * Changes a member's role in a workspace (the caller's primary one by default); only its admins may,
 * and never their own role. One transaction, the workspace locked so changes happen one at a time:
 * - to admin: in single-workspace mode every other admin becomes an editor without the admin realm
 *   roles (the caller too) and is logged out.
 * - a member who becomes an admin of their first workspace gets the admin realm roles, one who is an
 *   admin of none any more loses them; either is logged out (tokens and sessions carry the old roles).
 * - to viewer: the member's datasets in the workspace go to the caller, and their owner and editor
 *   roles on the workspace's datasets become viewer.
 * The provider's roles change last; if that fails, what it changed is undone and the transaction
 * rolls back. Setting the role a member already has changes nothing.
 */
export async function changeMemberRole(deps: MemberRoleDeps, caller: User, memberId: string, role: WorkspaceRole, workspaceId?: string): Promise<MemberRow> {
  const id = await namedOrPrimaryWorkspaceId(deps.db, caller, workspaceId);
  if (!id) throw workspaceNotFound();
  return deps.db.transaction(async (trx) => {
    await lockWorkspace(trx, id);
    if ((await requireWorkspace(trx, caller, id)).role !== 'admin') throw forbidden('Only an admin of the workspace may change member roles');
    if (memberId === caller.id) throw invalid('You cannot change your own role');
    const [member] = await workspaceMembers(trx, id, memberId);
    if (!member) throw notFound('Member not found');
    if (member.role === role) return member;

    const wasAdmin = await isAdminAnywhere(trx, memberId);
    await setMemberRole(trx, id, memberId, role);
    const changes: AdminRoleChange[] = [];
    if (role === 'admin' && (await isSingleWorkspace(trx))) changes.push(...(await demoteOtherAdminsOf(trx, id, memberId)));
    const isAdmin = await isAdminAnywhere(trx, memberId);
    if (isAdmin !== wasAdmin) {
      const user = await findUserById(trx, memberId);
      if (!user) throw notFound('Member not found');
      await setRealmRoles(trx, memberId, withAdminRealmRoles(user.realm_roles, isAdmin));
      changes.push({ userId: memberId, idpSubject: user.idp_subject, admin: isAdmin });
    }
    if (role === 'viewer') {
      await transferOwnedDatasets(trx, memberId, caller.id, id);
      await lowerDatasetRolesToViewer(trx, memberId, id);
    }
    await applyAdminRoleChanges(trx, deps.idp, changes);
    return (await workspaceMembers(trx, id, memberId))[0];
  });
}
