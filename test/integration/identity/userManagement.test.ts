import { randomBytes } from 'node:crypto';
import { addDatasetMember, createDataset } from '../../../db/repositories/datasets';
import { ADMIN_REALM_ROLES, createUser } from '../../../db/repositories/users';
import { Workspace } from '../../../db/models';
import { createKeycloakAdmin } from '../../../lib/identity/keycloakAdmin';
import { createCookieJar, loginFormAction } from '../../support/cookieJar';
import { startIdentityStack, type IdentityStack } from '../../support/identityStack';
import { createKeycloakUser, waitForTestKeycloak, type TestKeycloak } from '../../support/keycloak';
import { bearerOf } from '../../support/sessions';
import { startTestApi, type TestApi } from '../../support/testStack';

/** User management (spec "User management (self-hosted)") over the run's real Keycloak, through its Admin REST API. */
describe('user management through Keycloak', () => {
  let keycloak: TestKeycloak;
  let api: TestApi;
  let stack: IdentityStack;
  let browser: IdentityStack['browser'];
  let admin: string;
  const tag = randomBytes(3).toString('hex');
  const USERS = '/api/v1/idp/admin/users';
  const idp = () => createKeycloakAdmin(keycloak);

  beforeAll(async () => {
    keycloak = await waitForTestKeycloak();
    // This file's own first admin (the realm is shared by the run's identity tests; its admin is left alone).
    const rootId = await createKeycloakUser(keycloak, { username: `root-${tag}`, email: `root-${tag}@example.com`, password: 'root-password-1' });
    await idp().addRealmRoles(rootId, ADMIN_REALM_ROLES);
    stack = await startIdentityStack({ ADMIN_EMAIL: `root-${tag}@example.com` });
    ({ api, browser } = stack);
    admin = await sessionOf(`root-${tag}`, 'root-password-1');
  }, 330_000);
  afterAll(() => stack?.close());

  async function sessionOf(username: string, password: string): Promise<string> {
    const jar = createCookieJar();
    await browser.login(jar, username, password);
    return browser.session(jar);
  }

  const newUser = (name: string, extra: object = {}) => ({ username: `${name}-${tag}`, password: `${name}-password-1`, firstName: 'First', lastName: 'Last', ...extra });
  const create = (cookie: string, body: object) => api.request.post(USERS).set('Cookie', cookie).send(body);

  it('answers 403 outside ONPREM with authentication and an identity provider', async () => {
    const open = await startTestApi();
    try {
      expect((await open.request.get(USERS).expect(403)).body).toEqual({ detail: 'User management exists only with RUN_MODE=ONPREM and authentication enabled' });
      await open.request.post(USERS).send(newUser('x')).expect(403);
    } finally {
      await open.close();
    }
    const passwords = await startTestApi({ DISABLE_AUTH: 'false', ADMIN_PASSWORD: 'admin-password-1' });
    try {
      const login = await passwords.request.post('/api/v1/auth/login').send({ email: 'admin@localhost.localdomain', password: 'admin-password-1' }).expect(200);
      const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      expect((await passwords.request.get(USERS).set('Cookie', cookie).expect(403)).body).toEqual({ detail: 'User management needs the identity provider (OIDC_ISSUER)' });
    } finally {
      await passwords.close();
    }
    const cloud = await startTestApi({ RUN_MODE: 'CLOUD', SECRET_KEY: 'test-secret-key-that-is-long-enough-123', ADMIN_PASSWORD: 'admin-password-1' });
    try {
      const bearer = await bearerOf(cloud, 'admin@localhost.localdomain', 'admin-password-1');
      expect((await cloud.request.get(USERS).set('Authorization', bearer).expect(403)).body).toEqual({
        detail: 'User management exists only with RUN_MODE=ONPREM and authentication enabled',
      });
      await cloud.request.get(USERS).expect(401);
    } finally {
      await cloud.close();
    }
  });

  it('refuses callers without the realm roles (403, before their input is looked at), and view-users may read but not write', async () => {
    const viewer = (await create(admin, newUser('plain')).expect(201)).body;
    const plain = await sessionOf(viewer.username, 'plain-password-1');
    expect((await api.request.get(USERS).set('Cookie', plain).expect(403)).body).toEqual({ detail: 'User management needs the realm role view-users' });
    await api.request.get(`${USERS}/${viewer.id}`).set('Cookie', plain).expect(403);
    expect((await create(plain, { username: 'a b' }).expect(403)).body).toEqual({ detail: 'User management needs the realm role manage-users' });
    await api.request.delete(`${USERS}/${viewer.id}`).set('Cookie', plain).expect(403);
    await api.request.get(USERS).expect(401);

    const readerId = await createKeycloakUser(keycloak, { username: `reader-${tag}`, password: 'reader-password-1' });
    await idp().addRealmRoles(readerId, ['view-users']);
    const reader = await sessionOf(`reader-${tag}`, 'reader-password-1');
    expect((await api.request.get(`${USERS}/${viewer.id}`).set('Cookie', reader).expect(200)).body.username).toBe(viewer.username);
    expect((await create(reader, newUser('nope')).expect(403)).body).toEqual({ detail: 'User management needs the realm role manage-users' });
    await api.request.delete(`${USERS}/${viewer.id}`).set('Cookie', reader).expect(403);
    expect(await idp().listUsers({ search: `nope-${tag}`, first: 0, max: 10 })).toEqual({ users: [], total: 0 });
  });

  it('refuses bad input with 400 naming the field, creating nothing', async () => {
    const cases: Array<[object, string]> = [
      [{ ...newUser('x'), username: 'ab' }, 'body.username: username must be 3-255 characters'],
      [{ ...newUser('x'), username: 'has space' }, 'body.username: username must not contain whitespace'],
      [{ ...newUser('x'), username: 'x'.repeat(256) }, 'body.username: username must be 3-255 characters'],
      [{ ...newUser('x'), password: 'short' }, 'body.password: password must be at least 8 characters'],
      [{ username: `x-${tag}`, password: 'long-enough-1', lastName: 'L' }, 'body.firstName: firstName is required'],
      [{ ...newUser('x'), lastName: '  ' }, 'body.lastName: lastName must be 1-255 characters'],
      [{ ...newUser('x'), enabled: 'yes' }, 'body.enabled: enabled must be a boolean'],
      [{ ...newUser('x'), workspace_role: 'owner' }, 'body.workspace_role: workspace_role must be admin, editor or viewer'],
    ];
    for (const [body, detail] of cases) expect((await create(admin, body).expect(400)).body).toEqual({ detail });
    for (const query of ['max_results=0', 'max_results=1001', 'max_results=x', 'first=-1', 'first=1.5']) {
      expect((await api.request.get(`${USERS}?${query}`).set('Cookie', admin).expect(400)).body.detail).toMatch(/^query\.(max_results|first): /);
    }
    expect(await idp().listUsers({ search: `x-${tag}`, first: 0, max: 10 })).toEqual({ users: [], total: 0 });
  });

  it('creates a user at the provider and in the service, who then logs in as that same user; reads by either id', async () => {
    const created = await create(admin, newUser('carol', { workspace_role: 'editor' })).expect(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      username: `carol-${tag}`,
      firstName: 'First',
      lastName: 'Last',
      enabled: true,
      createdTimestamp: expect.any(Number),
      roles: [],
      lastAccess: null,
    });
    const stored = await api.deps.db('users').where({ idp_subject: created.body.id }).first();
    expect(stored).toMatchObject({ username: `carol-${tag}`, email: `carol-${tag}@idp.invalid`, first_name: 'First', enabled: true });
    expect(await api.deps.db('workspace_members').where({ user_id: stored.id }).first()).toMatchObject({ role: 'editor' });

    await sessionOf(`carol-${tag}`, 'carol-password-1');
    expect(await api.deps.db('users').where({ username: `carol-${tag}` }).count({ n: '*' }).first()).toEqual({ n: '1' });
    const byIdp = (await api.request.get(`${USERS}/${created.body.id}`).set('Cookie', admin).expect(200)).body;
    const byService = (await api.request.get(`${USERS}/${stored.id}`).set('Cookie', admin).expect(200)).body;
    expect(byService).toEqual(byIdp);
    expect(byIdp.lastAccess).toEqual(expect.any(Number));
    expect((await create(admin, newUser('dora', { enabled: false })).expect(201)).body.enabled).toBe(false);
  });

  it('refuses a username the provider has (400, nothing in the service) and removes the provider user when the service step fails', async () => {
    await create(admin, newUser('erin')).expect(201);
    const again = await create(admin, newUser('erin')).expect(400);
    expect(again.body.detail).toMatch(/username/i);
    expect(await api.deps.db('users').where({ username: `erin-${tag}` }).count({ n: '*' }).first()).toEqual({ n: '1' });

    // A local account holds the email the new user would get: the service insert fails after the provider's succeeded.
    const workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    await createUser(api.deps.db, { email: `frank-${tag}@example.com`, username: `local-frank-${tag}`, workspaceId, workspaceRole: 'viewer' });
    const refused = await create(admin, newUser('frank', { username: `frank-${tag}@example.com` })).expect(400);
    expect(refused.body).toEqual({ detail: 'Already exists: email' });
    expect(await idp().listUsers({ search: `frank-${tag}`, first: 0, max: 10 })).toEqual({ users: [], total: 0 });
  });

  it('lists users with search and paging, and answers 404 for unknown ids and local accounts', async () => {
    for (const name of ['list-a', 'list-b', 'list-c']) await create(admin, newUser(name)).expect(201);
    const all = (await api.request.get(`${USERS}?search=list-`).set('Cookie', admin).expect(200)).body;
    expect(all.users.map((user: { username: string }) => user.username).filter((name: string) => name.endsWith(tag)).sort()).toEqual(
      ['list-a', 'list-b', 'list-c'].map((name) => `${name}-${tag}`),
    );
    const paged = (await api.request.get(`${USERS}?search=list-c-${tag}&max_results=1&first=0`).set('Cookie', admin).expect(200)).body;
    expect(paged).toMatchObject({ total: 1, users: [{ username: `list-c-${tag}` }] });
    expect((await api.request.get(`${USERS}?search=list-c-${tag}&first=1`).set('Cookie', admin).expect(200)).body).toEqual({ users: [], total: 1 });

    expect((await api.request.get(`${USERS}/0b6b1b9e-5d0c-4c3e-9d6f-2f4f0f1a2b3c`).set('Cookie', admin).expect(404)).body).toEqual({ detail: 'User not found' });
    expect((await api.request.get(`${USERS}/no-such-user`).set('Cookie', admin).expect(404)).body).toEqual({ detail: 'User not found' });
    const local = await api.deps.db('users').where({ username: `local-frank-${tag}` }).first();
    await api.request.get(`${USERS}/${local.id}`).set('Cookie', admin).expect(404);
  });

  it('deletes a user: their datasets go to the deleting admin, then the provider and service users go; never oneself or the last admin (400)', async () => {
    const gone = (await create(admin, newUser('gone', { workspace_role: 'editor' })).expect(201)).body;
    const goneSession = await sessionOf(gone.username, 'gone-password-1');
    const service = await api.deps.db('users').where({ idp_subject: gone.id }).first();
    const workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    const dataset = await createDataset(api.deps.db, { name: `owned-${tag}`, ownerId: service.id, workspaceId, status: 'READY' });
    await api.request.post(`/api/v1/dataset/${dataset.id}/views`).set('Cookie', goneSession).field('name', 'theirs').expect(200);
    const shared = await createDataset(api.deps.db, { name: `shared-${tag}`, ownerId: api.deps.defaultUser.id, workspaceId, status: 'READY' });
    await addDatasetMember(api.deps.db, shared.id, service.id, 'viewer');

    expect((await api.request.delete(`${USERS}/${gone.id}`).set('Cookie', admin).expect(200)).body).toEqual({ message: 'User deleted successfully' });
    expect(await api.deps.db('users').where({ id: service.id }).first()).toBeUndefined();
    expect(await idp().getUser(gone.id)).toBeUndefined();
    expect(await api.deps.db('datasets').where({ id: dataset.id }).first()).toMatchObject({ owner_id: api.deps.defaultUser.id });
    expect(await api.deps.db('dataset_members').where({ dataset_id: dataset.id })).toEqual([expect.objectContaining({ user_id: api.deps.defaultUser.id, role: 'owner' })]);
    expect(await api.deps.db('dataset_members').where({ dataset_id: shared.id }).count({ n: '*' }).first()).toEqual({ n: '1' });
    expect(await api.deps.db('saved_views').where({ dataset_id: dataset.id }).first()).toMatchObject({ created_by: api.deps.defaultUser.id });
    expect((await api.request.get('/api/v1/datasets').set('Cookie', goneSession).expect(401)).body).toBeTruthy();
    await api.request.delete(`${USERS}/${gone.id}`).set('Cookie', admin).expect(404);

    const self = await api.request.delete(`${USERS}/${api.deps.defaultUser.id}`).set('Cookie', admin).expect(400);
    expect(self.body).toEqual({ detail: 'You cannot delete your own account' });
    // Another user manager may not delete the workspace's only admin either.
    const manager = (await create(admin, newUser('manager', { workspace_role: 'editor' })).expect(201)).body;
    await idp().addRealmRoles(manager.id, ['manage-users', 'view-users']);
    const managerSession = await sessionOf(manager.username, 'manager-password-1');
    expect((await api.request.delete(`${USERS}/${api.deps.defaultUser.id}`).set('Cookie', managerSession).expect(400)).body).toEqual({
      detail: 'Cannot delete the last admin of the workspace',
    });
    expect(await idp().getUser((await api.deps.db('users').where({ id: api.deps.defaultUser.id }).first()).idp_subject)).toBeDefined();
  });

  it('renames, disables, resets passwords, logs out, lists sessions and replaces realm roles; 400, 403 and 404 for each', async () => {
    const user = (await create(admin, newUser('hank')).expect(201)).body;
    const path = `${USERS}/${user.id}`;
    const hank = await sessionOf(user.username, 'hank-password-1');
    const needsManage = { detail: 'User management needs the realm role manage-users' };
    for (const call of [
      () => api.request.patch(path).set('Cookie', hank).send({}),
      () => api.request.post(`${path}/reset-password`).set('Cookie', hank).send({}),
      () => api.request.post(`${path}/logout`).set('Cookie', hank),
      () => api.request.put(`${path}/roles`).set('Cookie', hank).send({}),
    ]) {
      expect((await call().expect(403)).body).toEqual(needsManage);
    }
    expect((await api.request.get(`${path}/sessions`).set('Cookie', hank).expect(403)).body).toEqual({ detail: 'User management needs the realm role view-users' });

    const bad: Array<[() => ReturnType<typeof api.request.get>, string]> = [
      [() => api.request.patch(path).set('Cookie', admin).send({}), 'body: give username or enabled (at least one)'],
      [() => api.request.patch(path).set('Cookie', admin).send({ username: 'a b' }), 'body.username: username must not contain whitespace'],
      [() => api.request.patch(path).set('Cookie', admin).send({ enabled: 'no' }), 'body.enabled: enabled must be a boolean'],
      [() => api.request.post(`${path}/reset-password`).set('Cookie', admin).send({ password: 'short' }), 'body.password: password must be at least 8 characters'],
      [() => api.request.put(`${path}/roles`).set('Cookie', admin).send({}), 'body.roles: roles must be an array of realm role names'],
      [() => api.request.put(`${path}/roles`).set('Cookie', admin).send({ roles: 'view-users' }), 'body.roles: roles must be an array of realm role names'],
    ];
    for (const [call, detail] of bad) expect((await call().expect(400)).body).toEqual({ detail });

    const missing = `${USERS}/0b6b1b9e-5d0c-4c3e-9d6f-2f4f0f1a2b3c`;
    await api.request.patch(missing).set('Cookie', admin).send({ enabled: true }).expect(404);
    await api.request.post(`${missing}/reset-password`).set('Cookie', admin).send({ password: 'long-enough-1' }).expect(404);
    await api.request.post(`${missing}/logout`).set('Cookie', admin).expect(404);
    await api.request.get(`${missing}/sessions`).set('Cookie', admin).expect(404);
    await api.request.put(`${missing}/roles`).set('Cookie', admin).send({ roles: [] }).expect(404);

    const sessions = (await api.request.get(`${path}/sessions`).set('Cookie', admin).expect(200)).body;
    expect(sessions).toMatchObject({ total: 1, sessions: [{ username: user.username, ipAddress: expect.any(String), start: expect.any(Number) }] });
    expect(Object.values(sessions.sessions[0].clients)).toEqual(['media-dataset-service']);

    // Roles: replaced, unknown names ignored, and the service's gate follows at once.
    const granted = (await api.request.put(`${path}/roles`).set('Cookie', admin).send({ roles: ['view-users', 'no-such-role'] }).expect(200)).body;
    expect(granted.roles).toEqual(['view-users']);
    await api.request.get(USERS).set('Cookie', hank).expect(200);
    expect((await api.request.put(`${path}/roles`).set('Cookie', admin).send({ roles: [] }).expect(200)).body.roles).toEqual([]);
    await api.request.get(USERS).set('Cookie', hank).expect(403);

    // Rename at the provider and in the service; a taken name changes nothing.
    expect((await api.request.patch(path).set('Cookie', admin).send({ username: `henry-${tag}` }).expect(200)).body.username).toBe(`henry-${tag}`);
    expect(await api.deps.db('users').where({ idp_subject: user.id }).first()).toMatchObject({ username: `henry-${tag}` });
    await api.request.patch(path).set('Cookie', admin).send({ username: `root-${tag}` }).expect(400);
    expect((await idp().getUser(user.id))!.username).toBe(`henry-${tag}`);

    // Logout ends the sessions in the service and at the provider.
    expect((await api.request.post(`${path}/logout`).set('Cookie', admin).expect(200)).body).toEqual({ message: 'User logged out successfully' });
    await api.request.get('/api/v1/datasets').set('Cookie', hank).expect(401);
    expect((await api.request.get(`${path}/sessions`).set('Cookie', admin).expect(200)).body).toEqual({ sessions: [], total: 0 });

    // A reset password is temporary: the user is logged out and must choose a new one at the next login.
    const again = await sessionOf(`henry-${tag}`, 'hank-password-1');
    expect((await api.request.post(`${path}/reset-password`).set('Cookie', admin).send({ password: 'temporary-password-1' }).expect(200)).body).toEqual({
      message: 'Password reset successfully',
    });
    await api.request.get('/api/v1/datasets').set('Cookie', again).expect(401);
    const jar = createCookieJar();
    const { page } = await browser.startLogin(jar);
    let answer = await jar.request(loginFormAction(page.body), { form: { username: `henry-${tag}`, password: 'temporary-password-1', credentialId: '' } });
    if (answer.status === 302) answer = await jar.request(answer.location!);
    expect(answer.body).toContain('password-new');

    // Disabled: at the provider and in the service; nobody disables their own account.
    expect((await api.request.patch(path).set('Cookie', admin).send({ enabled: false }).expect(200)).body.enabled).toBe(false);
    expect(await api.deps.db('users').where({ idp_subject: user.id }).first()).toMatchObject({ enabled: false });
    expect((await api.request.patch(`${USERS}/${api.deps.defaultUser.id}`).set('Cookie', admin).send({ enabled: false }).expect(400)).body).toEqual({
      detail: 'You cannot disable your own account',
    });
  });

  // Last: it makes this file's admin an editor.
  it('makes a new admin the only one (single workspace): the former admin becomes an editor without the admin realm roles, logged out', async () => {
    const root = await api.deps.db('users').where({ id: api.deps.defaultUser.id }).first();
    const boss = (await create(admin, newUser('boss', { workspace_role: 'admin' })).expect(201)).body;
    expect(boss.roles.sort()).toEqual(['manage-users', 'query-groups', 'query-users', 'view-users']);
    const bossUser = await api.deps.db('users').where({ idp_subject: boss.id }).first();
    expect(await api.deps.db('workspace_members').where({ user_id: bossUser.id }).first()).toMatchObject({ role: 'admin' });
    expect(await api.deps.db('workspace_members').where({ user_id: root.id }).first()).toMatchObject({ role: 'editor' });
    expect((await api.deps.db('users').where({ id: root.id }).first()).realm_roles).not.toEqual(expect.arrayContaining(['manage-users']));
    expect((await api.deps.db('users').where({ id: root.id }).first()).realm_roles).not.toEqual(expect.arrayContaining(['view-users']));
    expect(await idp().realmRoles(root.idp_subject)).toEqual([]);
    await api.request.get('/api/v1/datasets').set('Cookie', admin).expect(401);
    // The new admin manages users; the former one, logging in again, may not.
    const bossSession = await sessionOf(boss.username, 'boss-password-1');
    await api.request.get(`${USERS}/${root.idp_subject}`).set('Cookie', bossSession).expect(200);
    const again = await sessionOf(`root-${tag}`, 'root-password-1');
    await api.request.get(USERS).set('Cookie', again).expect(403);
  });
});
