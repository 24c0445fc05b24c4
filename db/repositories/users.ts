import type { Db } from '../connection';
import { Organization, User, Workspace, WorkspaceMember, type WorkspaceRole } from '../models';
import { hashPassword, verifyPassword } from '../../lib/auth/passwords';
import { transferOwnedDatasets } from './datasets';

export const ADMIN_REALM_ROLES = ['manage-users', 'view-users', 'query-users', 'query-groups'];

export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return User.query(db).findOne({ email: email.toLowerCase() });
}

export async function findEnabledUser(db: Db, id: string): Promise<User | undefined> {
  return User.query(db).findById(id).where({ enabled: true });
}

/** A user by id, enabled or not; undefined when there is none. */
export async function findUserById(db: Db, id: string): Promise<User | undefined> {
  return User.query(db).findById(id);
}

export async function createUser(
  db: Db,
  input: {
    email: string;
    password?: string;
    username?: string;
    firstName?: string;
    lastName?: string;
    workspaceId: string;
    workspaceRole: WorkspaceRole;
    realmRoles?: string[];
    idpSubject?: string;
    enabled?: boolean;
  },
): Promise<User> {
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return db.transaction(async (trx) => {
    const email = input.email.toLowerCase();
    const user = await User.query(trx).insertAndFetch({
      email,
      username: input.username ?? email,
      first_name: input.firstName ?? null,
      last_name: input.lastName ?? null,
      password_hash: passwordHash,
      realm_roles: input.realmRoles ?? [],
      idp_subject: input.idpSubject ?? null,
      enabled: input.enabled ?? true,
    });
    await WorkspaceMember.query(trx).insert({
      workspace_id: input.workspaceId,
      user_id: user.id,
      role: input.workspaceRole,
    });
    return user;
  });
}

export async function setPassword(db: Db, userId: string, password: string): Promise<void> {
  await User.query(db).patch({ password_hash: await hashPassword(password), updated_at: new Date() }).where({ id: userId });
}

export interface Tenant {
  admin: User;
  workspace: Workspace;
}

/**
 * The default organization, workspace and admin user that every deployment starts with. ONPREM with
 * auth disabled acts as this admin; `adminPassword` sets its password only while it has none.
 */
export async function ensureDefaultTenant(db: Db, admin: { email: string; password?: string }): Promise<Tenant> {
  const tenant = await db.transaction(async (trx) => {
    // Serialises concurrent first starts (api replicas) so only one default tenant is created.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['ensureDefaultTenant']);
    let workspace = await Workspace.query(trx).orderBy('created_at').first();
    if (!workspace) {
      const organization = await Organization.query(trx).insertAndFetch({ name: 'Default organization' });
      workspace = await Workspace.query(trx).insertAndFetch({ organization_id: organization.id, name: 'Default workspace' });
    }
    let user = await User.query(trx).findOne({ email: admin.email });
    if (!user) {
      user = await User.query(trx).insertAndFetch({ email: admin.email, username: admin.email, realm_roles: ADMIN_REALM_ROLES });
      await WorkspaceMember.query(trx).insert({ workspace_id: workspace.id, user_id: user.id, role: 'admin' });
    }
    return { admin: user, workspace };
  });
  if (admin.password && !tenant.admin.password_hash) await setPassword(db, tenant.admin.id, admin.password);
  return tenant;
}

/** The enabled user with this email and password, else undefined (same answer for unknown email and bad password). */
export async function authenticateWithPassword(db: Db, email: string, password: string): Promise<User | undefined> {
  const user = await findUserByEmail(db, email);
  const valid = await verifyPassword(user?.password_hash ?? null, password);
  return valid && user?.enabled ? user : undefined;
}

/** The user's first workspace (the one new datasets go to) and their role in it. */
export async function primaryWorkspaceRole(
  db: Db,
  userId: string,
): Promise<{ workspaceId: string; role: WorkspaceRole } | undefined> {
  const row = await WorkspaceMember.query(db).where({ user_id: userId }).orderBy('created_at').first();
  return row ? { workspaceId: row.workspace_id, role: row.role } : undefined;
}

export async function findUserBySubject(db: Db, subject: string): Promise<User | undefined> {
  return User.query(db).findOne({ idp_subject: subject });
}

/** Links an account to the identity provider's subject; false when it is already linked (to any subject). */
export async function linkUserToSubject(db: Db, userId: string, subject: string): Promise<boolean> {
  return (await User.query(db).patch({ idp_subject: subject, updated_at: new Date() }).where({ id: userId }).whereNull('idp_subject')) === 1;
}

/** What the identity provider says of a linked user at each login: names and realm roles. */
export async function updateIdpProfile(
  db: Db,
  userId: string,
  profile: { firstName?: string; lastName?: string; realmRoles?: string[] },
): Promise<User> {
  return User.query(db).patchAndFetchById(userId, {
    ...(profile.firstName !== undefined ? { first_name: profile.firstName } : {}),
    ...(profile.lastName !== undefined ? { last_name: profile.lastName } : {}),
    ...(profile.realmRoles !== undefined ? { realm_roles: profile.realmRoles } : {}),
    updated_at: new Date(),
  });
}

/** The workspace new users join: the first one (the default tenant's). */
export async function primaryWorkspaceId(db: Db): Promise<string | undefined> {
  return (await Workspace.query(db).orderBy('created_at').first())?.id;
}

/** Whether a username is taken. */
export async function usernameTaken(db: Db, username: string): Promise<boolean> {
  return (await User.query(db).findOne({ username })) !== undefined;
}

/** The service user an admin names: by its own id, or by the identity provider's. */
export async function findUserByIdOrSubject(db: Db, id: string): Promise<User | undefined> {
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
  return (isUuid ? await User.query(db).findById(id) : undefined) ?? (await findUserBySubject(db, id));
}

/** Service users linked to these provider subjects, with their latest session activity. */
export async function usersOfSubjects(db: Db, subjects: string[]): Promise<Array<{ idp_subject: string; id: string; last_access: Date | null }>> {
  if (subjects.length === 0) return [];
  return db('users as u')
    .leftJoin('sessions as s', 's.user_id', 'u.id')
    .whereIn('u.idp_subject', subjects)
    .groupBy('u.id')
    .select('u.idp_subject', 'u.id', db.raw('max(s.last_access_at) as last_access'));
}

/** Whether the user is the only admin of one of their workspaces. */
export async function isLastAdmin(db: Db, userId: string): Promise<boolean> {
  const row = await db('workspace_members as wm')
    .where({ 'wm.user_id': userId, 'wm.role': 'admin' })
    .whereNotExists(
      db('workspace_members as other').whereRaw('other.workspace_id = wm.workspace_id').where('other.role', 'admin').whereNot('other.user_id', userId),
    )
    .first('wm.workspace_id');
  return row !== undefined;
}

/**
 * Deletes a service user after giving what they own and made to `heirId`: their datasets (the owner
 * role with them), and the tasks, uploads and saved views they started. Memberships, sessions, keys
 * and notifications go with the user.
 */
export async function deleteUserTransferring(db: Db, userId: string, heirId: string): Promise<void> {
  await transferOwnedDatasets(db, userId, heirId);
  await db('tasks').where({ created_by: userId }).update({ created_by: heirId });
  await db('upload_transactions').where({ created_by: userId }).update({ created_by: heirId });
  await db('saved_views').where({ created_by: userId }).update({ created_by: heirId });
  await User.query(db).deleteById(userId);
}

/** Whether the deployment has one workspace (the spec's single-workspace mode: one admin). */
export async function isSingleWorkspace(db: Db): Promise<boolean> {
  const { n } = (await db('workspaces').count({ n: '*' }).first()) as { n: string };
  return Number(n) === 1;
}

/** Makes every other admin of the workspace an editor and takes their admin realm roles; returns who was demoted. */
export async function demoteOtherAdmins(db: Db, workspaceId: string, keptUserId: string): Promise<Array<{ id: string; idp_subject: string | null }>> {
  const demoted: Array<{ id: string; idp_subject: string | null }> = await db('workspace_members as wm')
    .join('users as u', 'u.id', 'wm.user_id')
    .where({ 'wm.workspace_id': workspaceId, 'wm.role': 'admin' })
    .whereNot('wm.user_id', keptUserId)
    .select('u.id', 'u.idp_subject');
  if (demoted.length === 0) return [];
  const ids = demoted.map((user) => user.id);
  await db('workspace_members').where({ workspace_id: workspaceId }).whereIn('user_id', ids).update({ role: 'editor' });
  await db('users')
    .whereIn('id', ids)
    .update({ realm_roles: db.raw('array(select unnest(realm_roles) except select unnest(?::text[]))', [ADMIN_REALM_ROLES]), updated_at: db.fn.now() });
  return demoted;
}

/** Changes a user's username or whether they may log in. */
export async function updateUserAccount(db: Db, userId: string, changes: { username?: string; enabled?: boolean }): Promise<void> {
  await User.query(db)
    .patch({ ...changes, updated_at: new Date() })
    .where({ id: userId });
}

export async function setRealmRoles(db: Db, userId: string, roles: string[]): Promise<void> {
  await User.query(db).patch({ realm_roles: roles, updated_at: new Date() }).where({ id: userId });
}
