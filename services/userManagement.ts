import type { Db } from '../db/connection';
import { UniqueViolationError } from '../db/errors';
import type { User, WorkspaceRole } from '../db/models';
import {
  ADMIN_REALM_ROLES,
  createUser,
  deleteUserTransferring,
  isSingleWorkspace,
  findUserByIdOrSubject,
  isLastAdmin,
  primaryWorkspaceId,
  setRealmRoles,
  updateUserAccount,
  usersOfSubjects,
} from '../db/repositories/users';
import { deleteUserSessions } from '../db/repositories/sessions';
import { lockWorkspace } from '../db/repositories/workspaces';
import { IdentityProviderError, type IdpSession, type IdpUser, type KeycloakAdmin } from '../lib/identity/keycloakAdmin';
import { forbidden, invalid, notFound } from '../lib/errors';
import { applyAdminRoleChanges, demoteOtherAdminsOf } from './adminRealmRoles';
import { NO_EMAIL_DOMAIN } from './identity';

/** A user as the user-management endpoints show it: the provider's record, its realm roles, the latest activity. */
export interface ManagedUser extends IdpUser {
  roles: string[];
  /** Epoch-ms of the user's latest session activity in the service, or null. */
  lastAccess: number | null;
}

export interface NewManagedUser {
  username: string;
  password: string;
  firstName: string;
  lastName: string;
  enabled: boolean;
  workspaceRole: WorkspaceRole;
}

/** Where user management lives: the service's database and the provider's admin API. */
export interface UserManagementDeps {
  db: Db;
  idp: KeycloakAdmin;
}

/** The realm roles that gate user management: reads need `view-users`, writes `manage-users`. */
export function requireRealmRole(user: User, role: 'view-users' | 'manage-users'): void {
  if (!user.realm_roles.includes(role)) throw forbidden(`User management needs the realm role ${role}`);
}

/**
 * The provider's refusals as domain errors (an unreachable provider stays an IdentityProviderError:
 * 503). The spec's user-management codes have no 409: a taken name is a validation error, 400.
 */
async function atProvider<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (!(error instanceof IdentityProviderError)) throw error;
    if (error.kind === 'not_found') throw notFound('User not found');
    if (error.kind === 'conflict' || error.kind === 'invalid') throw invalid(error.message);
    throw error;
  }
}

/** A name or email the service's own users already hold: a 400 too, like the provider's refusal. */
function takenHere(error: unknown): unknown {
  return error instanceof UniqueViolationError ? invalid(`Already exists: ${error.columns.join(', ')}`) : error;
}

async function withRolesAndAccess(deps: UserManagementDeps, users: IdpUser[]): Promise<ManagedUser[]> {
  const linked = new Map((await usersOfSubjects(deps.db, users.map((user) => user.id))).map((row) => [row.idp_subject, row]));
  return Promise.all(
    users.map(async (user) => ({
      ...user,
      roles: await atProvider(deps.idp.realmRoles(user.id)),
      lastAccess: linked.get(user.id)?.last_access ? new Date(linked.get(user.id)!.last_access!).getTime() : null,
    })),
  );
}

/** The provider id of a user named by either id; not found when neither knows it. */
async function providerId(deps: UserManagementDeps, userId: string): Promise<{ idpId: string; serviceUser?: User }> {
  const serviceUser = await findUserByIdOrSubject(deps.db, userId);
  if (serviceUser && !serviceUser.idp_subject) throw notFound('User not found at the identity provider (a local account)');
  return { idpId: serviceUser?.idp_subject ?? userId, serviceUser };
}

export async function listManagedUsers(
  deps: UserManagementDeps,
  query: { search?: string; first: number; max: number },
): Promise<{ users: ManagedUser[]; total: number }> {
  const page = await atProvider(deps.idp.listUsers(query));
  return { users: await withRolesAndAccess(deps, page.users), total: page.total };
}

export async function getManagedUser(deps: UserManagementDeps, userId: string): Promise<ManagedUser> {
  const { idpId } = await providerId(deps, userId);
  const user = await atProvider(deps.idp.getUser(idpId));
  if (!user) throw notFound('User not found');
  return (await withRolesAndAccess(deps, [user]))[0];
}

/**
 * Creates the user at the provider, then in the service (a member of the primary workspace); if the
 * second step fails the provider's user is deleted again, so either both exist or neither. A new
 * admin in single-workspace mode is the only one: the others become editors, lose the admin realm
 * roles and are logged out (in the service and at the provider), in the same transaction.
 */
export async function createManagedUser(deps: UserManagementDeps, input: NewManagedUser): Promise<ManagedUser> {
  const workspaceId = await primaryWorkspaceId(deps.db);
  if (!workspaceId) throw new Error('no workspace: the default tenant was not created');
  const email = input.username.includes('@') ? input.username.toLowerCase() : undefined;
  const realmRoles = input.workspaceRole === 'admin' ? ADMIN_REALM_ROLES : [];
  const idpId = await atProvider(deps.idp.createUser({ ...input, email }));
  try {
    await atProvider(deps.idp.addRealmRoles(idpId, realmRoles));
    await deps.db.transaction(async (trx) => {
      // A new admin and a role change (services/memberRoles.ts) must not interleave their demotions.
      if (input.workspaceRole === 'admin') await lockWorkspace(trx, workspaceId);
      const user = await createUser(trx, {
        email: email ?? `${input.username.toLowerCase()}@${NO_EMAIL_DOMAIN}`,
        username: input.username,
        firstName: input.firstName,
        lastName: input.lastName,
        enabled: input.enabled,
        workspaceId,
        workspaceRole: input.workspaceRole,
        realmRoles,
        idpSubject: idpId,
      });
      if (input.workspaceRole === 'admin' && (await isSingleWorkspace(trx))) {
        await applyAdminRoleChanges(trx, deps.idp, await demoteOtherAdminsOf(trx, workspaceId, user.id));
      }
    });
  } catch (error) {
    await deps.idp.deleteUser(idpId).catch((rollback: unknown) => {
      throw new Error(`creating user ${input.username} failed and its provider user ${idpId} could not be removed: ${String(rollback)}`, { cause: error });
    });
    throw takenHere(error);
  }
  return getManagedUser(deps, idpId);
}

/**
 * Deletes a user: their datasets (and what they started) go to the deleting admin, then the
 * provider's user is deleted, then the service's, in one transaction with the first step. Deleting
 * oneself, or the last admin of a workspace, is refused.
 */
export async function deleteManagedUser(deps: UserManagementDeps, caller: User, userId: string): Promise<void> {
  const { idpId, serviceUser } = await providerId(deps, userId);
  if (serviceUser?.id === caller.id || idpId === caller.idp_subject) throw invalid('You cannot delete your own account');
  if (serviceUser && (await isLastAdmin(deps.db, serviceUser.id))) throw invalid('Cannot delete the last admin of the workspace');
  if (!serviceUser) {
    await atProvider(deps.idp.deleteUser(idpId));
    return;
  }
  await deps.db.transaction(async (trx) => {
    await deleteUserTransferring(trx, serviceUser.id, caller.id);
    // Already gone at the provider (removed in its console): the service's user goes all the same.
    await deps.idp.deleteUser(idpId).catch((error: unknown) => {
      if (!(error instanceof IdentityProviderError && error.kind === 'not_found')) throw error;
    });
  });
}

/** Ends every session of the user, at the provider and in the service. */
async function endEverySession(deps: UserManagementDeps, idpId: string, serviceUser: User | undefined): Promise<void> {
  await atProvider(deps.idp.logoutUser(idpId));
  if (serviceUser) await deleteUserSessions(deps.db, serviceUser.id);
}

/**
 * Changes the username or whether the user may log in, at the provider and in the service (the
 * provider's change is undone when the service's fails). A disabled user is logged out everywhere.
 */
export async function updateManagedUser(
  deps: UserManagementDeps,
  caller: User,
  userId: string,
  changes: { username?: string; enabled?: boolean },
): Promise<ManagedUser> {
  const { idpId, serviceUser } = await providerId(deps, userId);
  if (changes.enabled === false && (serviceUser?.id === caller.id || idpId === caller.idp_subject)) throw invalid('You cannot disable your own account');
  const before = await atProvider(deps.idp.getUser(idpId));
  if (!before) throw notFound('User not found');
  await atProvider(deps.idp.updateUser(idpId, changes));
  try {
    if (serviceUser) await updateUserAccount(deps.db, serviceUser.id, changes);
  } catch (error) {
    await deps.idp.updateUser(idpId, { username: before.username, enabled: before.enabled }).catch((rollback: unknown) => {
      throw new Error(`updating user ${idpId} failed and the provider's change could not be undone: ${String(rollback)}`, { cause: error });
    });
    throw takenHere(error);
  }
  if (changes.enabled === false) await endEverySession(deps, idpId, serviceUser);
  return getManagedUser(deps, idpId);
}

/** Sets a temporary password (to be changed at the next login) and logs the user out everywhere. */
export async function resetManagedPassword(deps: UserManagementDeps, userId: string, password: string): Promise<void> {
  const { idpId, serviceUser } = await providerId(deps, userId);
  await atProvider(deps.idp.setTemporaryPassword(idpId, password));
  await endEverySession(deps, idpId, serviceUser);
}

/** Ends every session of the user, at the provider and in the service. */
export async function logoutManagedUser(deps: UserManagementDeps, userId: string): Promise<void> {
  const { idpId, serviceUser } = await providerId(deps, userId);
  await endEverySession(deps, idpId, serviceUser);
}

/** The user's sessions at the provider. */
export async function managedUserSessions(deps: UserManagementDeps, userId: string): Promise<IdpSession[]> {
  const { idpId } = await providerId(deps, userId);
  return atProvider(deps.idp.sessions(idpId));
}

/** Replaces the user's realm roles with those named that exist (others are ignored), in the service too. */
export async function setManagedRealmRoles(deps: UserManagementDeps, userId: string, roles: string[]): Promise<ManagedUser> {
  const { idpId, serviceUser } = await providerId(deps, userId);
  const granted = await atProvider(deps.idp.replaceRealmRoles(idpId, roles));
  if (serviceUser) await setRealmRoles(deps.db, serviceUser.id, granted);
  return getManagedUser(deps, idpId);
}
