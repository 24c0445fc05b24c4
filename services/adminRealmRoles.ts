import type { Db } from '../db/connection';
import { deleteUserSessions } from '../db/repositories/sessions';
import { ADMIN_REALM_ROLES, demoteOtherAdmins } from '../db/repositories/users';
import { IdentityProviderError, type KeycloakAdmin } from '../lib/identity/keycloakAdmin';

/** A user who gains (`admin: true`) or loses the admin realm roles; `idpSubject` is null for a local account. */
export interface AdminRoleChange {
  userId: string;
  idpSubject: string | null;
  admin: boolean;
}

/** The realm roles with the admin ones added or taken away. */
export function withAdminRealmRoles(roles: string[], admin: boolean): string[] {
  return admin ? [...new Set([...roles, ...ADMIN_REALM_ROLES])] : roles.filter((role) => !ADMIN_REALM_ROLES.includes(role));
}

/** Single-workspace mode keeps one admin: the others become editors without the admin realm roles (in the service). */
export async function demoteOtherAdminsOf(db: Db, workspaceId: string, keptUserId: string): Promise<AdminRoleChange[]> {
  return (await demoteOtherAdmins(db, workspaceId, keptUserId)).map((user) => ({ userId: user.id, idpSubject: user.idp_subject, admin: false }));
}

/** The call's answer, or undefined when the provider has no such user (removed in its console): nothing to change there. */
async function unlessGone<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof IdentityProviderError && error.kind === 'not_found') return undefined;
    throw error;
  }
}

/**
 * Carries admin realm role changes, already written in the service's transaction `db`, to the
 * provider, then logs the users out there and in the service (their tokens and sessions carry the
 * old roles). When a provider call fails, the role changes already made there are undone before the
 * error goes on, so the caller's rollback leaves both sides as they were; logouts that happened stay
 * (the user signs in again, with the roles they had).
 */
export async function applyAdminRoleChanges(db: Db, idp: KeycloakAdmin | undefined, changes: AdminRoleChange[]): Promise<void> {
  for (const change of changes) await deleteUserSessions(db, change.userId);
  if (!idp) return;
  const linked = changes.flatMap((change) => (change.idpSubject ? [{ subject: change.idpSubject, admin: change.admin }] : []));
  const undo: Array<() => Promise<void>> = [];
  try {
    for (const { subject, admin } of linked) {
      const held = await unlessGone(idp.realmRoles(subject));
      const roles = ADMIN_REALM_ROLES.filter((role) => held !== undefined && held.includes(role) !== admin);
      if (roles.length === 0) continue;
      if (admin) await idp.addRealmRoles(subject, roles);
      else await idp.removeRealmRoles(subject, roles);
      undo.push(() => (admin ? idp.removeRealmRoles(subject, roles) : idp.addRealmRoles(subject, roles)));
    }
    for (const { subject } of linked) await unlessGone(idp.logoutUser(subject));
  } catch (error) {
    const failures: unknown[] = [];
    for (const step of undo.reverse()) await step().catch((rollback: unknown) => failures.push(rollback));
    if (failures.length > 0) {
      throw new Error(`admin role changes failed and could not all be undone at the identity provider: ${failures.map(String).join('; ')}`, { cause: error });
    }
    throw error;
  }
}
