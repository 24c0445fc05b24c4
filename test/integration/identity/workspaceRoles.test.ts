import { randomBytes, randomUUID } from 'node:crypto';
import { addDatasetMember, createDataset } from '../../../db/repositories/datasets';
import { ADMIN_REALM_ROLES, createUser } from '../../../db/repositories/users';
import { Organization, User, Workspace } from '../../../db/models';
import { createKeycloakAdmin, type KeycloakAdmin } from '../../../lib/identity/keycloakAdmin';
import { changeMemberRole } from '../../../services/memberRoles';
import { createCookieJar } from '../../support/cookieJar';
import { bearerOf } from '../../support/sessions';
import { startIdentityStack, type IdentityStack } from '../../support/identityStack';
import { createKeycloakUser, waitForTestKeycloak, type TestKeycloak } from '../../support/keycloak';
import { startTestApi, type TestApi } from '../../support/testStack';

const ADMIN_ROLES = [...ADMIN_REALM_ROLES].sort();

/** Workspace role changes (spec "Workspaces, members, settings, organizations") with their side effects in the service and the run's real Keycloak. */
describe('workspace member role changes', () => {
  let keycloak: TestKeycloak;
  let api: TestApi;
  let stack: IdentityStack;
  let root: string;
  let workspaceId: string;
  const tag = randomBytes(3).toString('hex');
  const idp = () => createKeycloakAdmin(keycloak);
  const roleOf = (userId: string) => `/api/v1/workspace/members/${userId}/role`;

  beforeAll(async () => {
    keycloak = await waitForTestKeycloak();
    // This file's own first admin (the realm is shared by the run's identity tests).
    const rootId = await createKeycloakUser(keycloak, { username: `wroot-${tag}`, email: `wroot-${tag}@example.com`, password: 'root-password-1' });
    await idp().addRealmRoles(rootId, ADMIN_REALM_ROLES);
    stack = await startIdentityStack({ ADMIN_EMAIL: `wroot-${tag}@example.com` });
    api = stack.api;
    workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    root = await sessionOf(`wroot-${tag}`, 'root-password-1');
  }, 330_000);
  afterAll(() => stack?.close());

  async function sessionOf(username: string, password: string): Promise<string> {
    const jar = createCookieJar();
    await stack.browser.login(jar, username, password);
    return stack.browser.session(jar);
  }

  /** A user at the provider and in the service (through user management), signed in. */
  async function member(name: string, role: 'admin' | 'editor' | 'viewer', admin = root) {
    const username = `${name}-${tag}`;
    const password = `${name}-password-1`;
    const created = await api.request
      .post('/api/v1/idp/admin/users')
      .set('Cookie', admin)
      .send({ username, password, firstName: name, lastName: 'Member', workspace_role: role })
      .expect(201);
    const user = (await User.query(api.deps.db).findOne({ idp_subject: created.body.id }))!;
    return { id: user.id, subject: created.body.id as string, username, password, session: await sessionOf(username, password) };
  }

  const put = (cookie: string, userId: string, body: object) => api.request.put(roleOf(userId)).set('Cookie', cookie).send(body);
  const memberships = () => api.deps.db('workspace_members').orderBy(['workspace_id', 'user_id']).select('workspace_id', 'user_id', 'role');
  const workspaceRole = async (userId: string) => (await api.deps.db('workspace_members').where({ user_id: userId, workspace_id: workspaceId }).first()).role;
  const storedRealmRoles = async (userId: string) => ((await User.query(api.deps.db).findById(userId))!.realm_roles as string[]).slice().sort();
  /** The admin realm roles among the service user's (the ID token also names the realm's default roles). */
  const storedAdminRoles = async (userId: string) => (await storedRealmRoles(userId)).filter((role) => ADMIN_ROLES.includes(role));
  const providerRoles = async (subject: string) => (await idp().realmRoles(subject)).sort();
  const signedIn = (cookie: string) => api.request.get('/api/v1/workspace/settings/access').set('Cookie', cookie);

  it('answers 403 outside ONPREM with authentication (auth off, CLOUD), changing nothing', async () => {
    const outside: Array<[Record<string, string>, (other: TestApi) => Promise<Record<string, string>>]> = [
      [{}, async () => ({})],
      [
        { RUN_MODE: 'CLOUD', SECRET_KEY: 'test-secret-key-that-is-long-enough-123', ADMIN_PASSWORD: 'admin-password-1' },
        async (other) => ({ Authorization: await bearerOf(other, 'admin@localhost.localdomain', 'admin-password-1') }),
      ],
    ];
    for (const [env, headers] of outside) {
      const other = await startTestApi(env);
      try {
        const someone = (await createUser(other.deps.db, { email: 'someone@example.com', workspaceId: (await Workspace.query(other.deps.db).first())!.id, workspaceRole: 'editor' })).id;
        expect((await other.request.put(roleOf(someone)).set(await headers(other)).send({ role: 'viewer' }).expect(403)).body).toEqual({
          detail: 'Workspaces exist only with RUN_MODE=ONPREM and authentication enabled',
        });
        expect(await other.deps.db('workspace_members').where({ user_id: someone }).first()).toMatchObject({ role: 'editor' });
      } finally {
        await other.close();
      }
    }
  });

  it('refuses non-admins (403), bad input (400), unknown members (404) and one own role (400), changing nothing', async () => {
    const editor = await member('ed', 'editor');
    const viewer = await member('vi', 'viewer');
    const before = await memberships();

    for (const caller of [editor, viewer]) {
      expect((await put(caller.session, viewer.id, { role: 'editor' }).expect(403)).body).toEqual({ detail: 'Only an admin of the workspace may change member roles' });
      await put(caller.session, caller.id, { role: 'admin' }).expect(403);
    }
    const bad: Array<[string, object, string]> = [
      [viewer.id, { role: 'owner' }, 'body.role: role must be admin, editor or viewer'],
      [viewer.id, {}, 'body.role: role must be admin, editor or viewer'],
      [viewer.id, { role: 'editor', workspace_id: 'nope' }, 'body.workspace_id: workspace_id must be a UUID'],
      ['not-a-uuid', { role: 'editor' }, 'params.member_user_id: member_user_id must be a UUID'],
    ];
    for (const [userId, body, detail] of bad) expect((await put(root, userId, body).expect(400)).body).toEqual({ detail });
    expect((await put(root, randomUUID(), { role: 'editor' }).expect(404)).body).toEqual({ detail: 'Member not found' });
    expect((await put(root, viewer.id, { role: 'editor', workspace_id: randomUUID() }).expect(404)).body).toEqual({ detail: 'Workspace not found' });
    expect((await put(root, api.deps.defaultUser.id, { role: 'editor' }).expect(400)).body).toEqual({ detail: 'You cannot change your own role' });
    await api.request.put(roleOf(viewer.id)).send({ role: 'editor' }).expect(401);

    expect(await memberships()).toEqual(before);
    expect(await providerRoles(viewer.subject)).toEqual([]);
    await signedIn(root).expect(200);
  });

  it("demotes an editor to viewer: their datasets go to the admin making the change, their editor share becomes viewer; the Member is answered", async () => {
    const dave = await member('dave', 'editor');
    const owned = await createDataset(api.deps.db, { name: `daves-${tag}`, ownerId: dave.id, workspaceId, status: 'READY' });
    const shared = await createDataset(api.deps.db, { name: `shared-${tag}`, ownerId: api.deps.defaultUser.id, workspaceId, status: 'READY' });
    await addDatasetMember(api.deps.db, shared.id, dave.id, 'editor');
    await api.request.post(`/api/v1/dataset/${shared.id}/views`).set('Cookie', dave.session).field('name', 'before').expect(200);

    const answer = (await put(root, dave.id, { role: 'viewer' }).expect(200)).body;
    expect(answer).toEqual({
      user_id: dave.id,
      username: dave.username,
      // Keycloak has no email for dave: the spec's Member email is then null.
      email: null,
      firstName: 'dave',
      lastName: 'Member',
      role: 'viewer',
      created_at: expect.stringMatching(/Z$/),
    });
    const listed = (await api.request.get('/api/v1/workspace/members').set('Cookie', root).expect(200)).body.members;
    expect(listed.find((entry: { user_id: string }) => entry.user_id === dave.id)).toEqual(answer);

    expect(await api.deps.db('datasets').where({ id: owned.id }).first()).toMatchObject({ owner_id: api.deps.defaultUser.id });
    const roles = async (datasetId: string) =>
      Object.fromEntries((await api.deps.db('dataset_members').where({ dataset_id: datasetId })).map((row: { user_id: string; role: string }) => [row.user_id, row.role]));
    expect(await roles(owned.id)).toEqual({ [api.deps.defaultUser.id]: 'owner', [dave.id]: 'viewer' });
    expect(await roles(shared.id)).toEqual({ [api.deps.defaultUser.id]: 'owner', [dave.id]: 'viewer' });

    // No admin role changed hands: Dave stays signed in, and may read but no longer write.
    await api.request.get(`/api/v1/dataset/${shared.id}`).set('Cookie', dave.session).expect(200);
    await api.request.get(`/api/v1/dataset/${owned.id}`).set('Cookie', dave.session).expect(200);
    for (const datasetId of [owned.id, shared.id]) {
      expect((await api.request.post(`/api/v1/dataset/${datasetId}/views`).set('Cookie', dave.session).field('name', 'after').expect(403)).body).toEqual({
        detail: 'This operation needs editor access to the dataset; you have viewer',
      });
    }
    // The same role again changes nothing.
    expect((await put(root, dave.id, { role: 'viewer' }).expect(200)).body).toEqual(answer);
  });

  it('leaves nothing changed when the provider fails part-way: roles changed there are put back, the transaction rolls back', async () => {
    const ivan = await member('ivan', 'editor');
    const rootUser = (await User.query(api.deps.db).findById(api.deps.defaultUser.id))!;
    const before = await memberships();
    const realmRolesBefore = { root: await storedRealmRoles(rootUser.id), ivan: await storedRealmRoles(ivan.id) };
    expect(realmRolesBefore.root).toEqual(expect.arrayContaining(ADMIN_ROLES));
    const real = idp();
    // The provider fails at the first logout, after both admin role changes were made there.
    const failing: KeycloakAdmin = { ...real, logoutUser: () => Promise.reject(new Error('provider down at logout')) };

    await expect(changeMemberRole({ db: api.deps.db, idp: failing }, rootUser, ivan.id, 'admin')).rejects.toThrow('provider down at logout');
    expect(await memberships()).toEqual(before);
    expect({ root: await storedRealmRoles(rootUser.id), ivan: await storedRealmRoles(ivan.id) }).toEqual(realmRolesBefore);
    expect(await providerRoles(rootUser.idp_subject!)).toEqual(ADMIN_ROLES);
    expect(await providerRoles(ivan.subject)).toEqual([]);
    await signedIn(root).expect(200);
    await signedIn(ivan.session).expect(200);
  });

  // Makes this file's admin an editor: the tests after it act as the new admin.
  let frank: Awaited<ReturnType<typeof member>>;

  it('promotes to admin in single-workspace mode: the other admins (the caller too) become editors without the admin realm roles, and everyone affected is logged out', async () => {
    frank = await member('frank', 'editor');
    const rootUser = (await User.query(api.deps.db).findById(api.deps.defaultUser.id))!;
    expect((await idp().sessions(rootUser.idp_subject!)).length).toBeGreaterThan(0);

    expect((await put(root, frank.id, { role: 'admin' }).expect(200)).body).toMatchObject({ user_id: frank.id, role: 'admin' });
    expect(await workspaceRole(frank.id)).toBe('admin');
    expect(await workspaceRole(rootUser.id)).toBe('editor');
    expect(await api.deps.db('workspace_members').where({ workspace_id: workspaceId, role: 'admin' }).pluck('user_id')).toEqual([frank.id]);
    expect(await storedAdminRoles(frank.id)).toEqual(ADMIN_ROLES);
    expect(await storedAdminRoles(rootUser.id)).toEqual([]);
    expect(await providerRoles(frank.subject)).toEqual(ADMIN_ROLES);
    expect(await providerRoles(rootUser.idp_subject!)).toEqual([]);

    // Logged out in the service and at the provider.
    await signedIn(root).expect(401);
    await signedIn(frank.session).expect(401);
    expect(await idp().sessions(rootUser.idp_subject!)).toEqual([]);
    expect(await idp().sessions(frank.subject)).toEqual([]);

    // Signed in again, each has the new role: Frank manages, the former admin does not.
    frank.session = await sessionOf(frank.username, frank.password);
    root = await sessionOf(`wroot-${tag}`, 'root-password-1');
    expect((await signedIn(frank.session).expect(200)).body).toEqual({ can_access: true, can_manage: true, role: 'admin' });
    expect((await signedIn(root).expect(200)).body).toEqual({ can_access: true, can_manage: false, role: 'editor' });
    await api.request.get('/api/v1/idp/admin/users').set('Cookie', frank.session).expect(200);
    await api.request.get('/api/v1/idp/admin/users').set('Cookie', root).expect(403);
    expect((await put(root, frank.id, { role: 'viewer' }).expect(403)).body).toEqual({ detail: 'Only an admin of the workspace may change member roles' });
    expect(await workspaceRole(frank.id)).toBe('admin');
  });

  it('with several workspaces: promotes without demoting the other admins, demotes an admin to viewer (admin realm roles revoked, logged out, datasets to the caller); 404 for another organization', async () => {
    const organization = await Organization.query(api.deps.db).insertAndFetch({ name: `elsewhere-${tag}` });
    const elsewhere = await Workspace.query(api.deps.db).insertAndFetch({ organization_id: organization.id, name: 'elsewhere' });
    const stranger = await createUser(api.deps.db, { email: `stranger-${tag}@example.com`, workspaceId: elsewhere.id, workspaceRole: 'editor' });
    expect((await put(frank.session, stranger.id, { role: 'viewer', workspace_id: elsewhere.id }).expect(404)).body).toEqual({ detail: 'Workspace not found' });
    expect((await put(frank.session, stranger.id, { role: 'viewer' }).expect(404)).body).toEqual({ detail: 'Member not found' });
    expect(await api.deps.db('workspace_members').where({ user_id: stranger.id }).first()).toMatchObject({ role: 'editor' });

    const helen = await member('helen', 'editor', frank.session);
    expect((await put(frank.session, helen.id, { role: 'admin' }).expect(200)).body.role).toBe('admin');
    expect(await api.deps.db('workspace_members').where({ workspace_id: workspaceId, role: 'admin' }).pluck('user_id').then((ids) => ids.sort())).toEqual(
      [frank.id, helen.id].sort(),
    );
    expect(await providerRoles(helen.subject)).toEqual(ADMIN_ROLES);
    expect(await providerRoles(frank.subject)).toEqual(ADMIN_ROLES);
    await signedIn(frank.session).expect(200);
    await signedIn(helen.session).expect(401);

    helen.session = await sessionOf(helen.username, helen.password);
    const owned = await createDataset(api.deps.db, { name: `helens-${tag}`, ownerId: helen.id, workspaceId, status: 'READY' });
    expect((await put(frank.session, helen.id, { role: 'viewer' }).expect(200)).body.role).toBe('viewer');
    expect(await storedAdminRoles(helen.id)).toEqual([]);
    expect(await providerRoles(helen.subject)).toEqual([]);
    await signedIn(helen.session).expect(401);
    expect(await idp().sessions(helen.subject)).toEqual([]);
    expect(await api.deps.db('datasets').where({ id: owned.id }).first()).toMatchObject({ owner_id: frank.id });
    expect(await api.deps.db('dataset_members').where({ dataset_id: owned.id, user_id: helen.id }).first()).toMatchObject({ role: 'viewer' });
    expect(await providerRoles(frank.subject)).toEqual(ADMIN_ROLES);
  });
});
