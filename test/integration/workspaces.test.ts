import { randomUUID } from 'node:crypto';
import { Organization, Workspace } from '../../db/models';
import { createUser } from '../../db/repositories/users';
import { startTestApi, type TestApi } from '../support/testStack';
import { loginCookie } from '../support/sessions';

const password = 'correct horse battery';
const paths = ['/api/v1/workspaces', '/api/v1/workspace/members', '/api/v1/workspace/settings/access', '/api/v1/organizations'];

/** Workspaces, members, access settings and organizations (self-hosted, ONPREM with auth on). */
describe('workspaces and organizations', () => {
  let api: TestApi;
  let workspaceId: string;
  let organizationId: string;
  let elsewhere: { workspace: string; organization: string };
  const cookies: Record<string, string> = {};

  beforeAll(async () => {
    api = await startTestApi({ RUN_MODE: 'ONPREM', DISABLE_AUTH: 'false', ADMIN_PASSWORD: password });
    const { db } = api.deps;
    const workspace = (await Workspace.query(db).first())!;
    [workspaceId, organizationId] = [workspace.id, workspace.organization_id];
    await createUser(db, { email: 'alice@example.com', password, workspaceId, workspaceRole: 'editor' });
    await createUser(db, { email: 'bob@example.com', password, workspaceId, workspaceRole: 'viewer' });
    const organization = await Organization.query(db).insertAndFetch({ name: 'elsewhere' });
    const other = await Workspace.query(db).insertAndFetch({ organization_id: organization.id, name: 'elsewhere' });
    elsewhere = { workspace: other.id, organization: organization.id };
    await createUser(db, { email: 'carol@example.com', password, workspaceId: other.id, workspaceRole: 'admin' });
    for (const name of ['alice', 'bob', 'carol']) {
      cookies[name] = await loginCookie(api, `${name}@example.com`, password);
    }
    cookies.admin = await loginCookie(api, api.deps.defaultUser.email, password);
  });
  afterAll(() => api.close());

  const get = (path: string, who: string) => api.request.get(path).set('Cookie', cookies[who]);

  it("lists the caller's workspaces with their permissions there, and only those", async () => {
    const { workspaces } = (await get('/api/v1/workspaces', 'alice').expect(200)).body;
    expect(workspaces).toEqual([
      {
        id: workspaceId,
        organization_id: organizationId,
        name: expect.any(String),
        created_at: expect.stringMatching(/Z$/),
        updated_at: null,
        permissions: { can_view: true, can_manage_members: false, can_edit_roles: false, can_create_dataset: true },
      },
    ]);
    expect((await get('/api/v1/workspaces', 'admin').expect(200)).body.workspaces[0].permissions).toEqual({
      can_view: true,
      can_manage_members: true,
      can_edit_roles: true,
      can_create_dataset: true,
    });
    expect((await get('/api/v1/workspaces', 'bob').expect(200)).body.workspaces[0].permissions.can_create_dataset).toBe(false);
    expect((await get(`/api/v1/workspaces?organization_id=${elsewhere.organization}`, 'alice').expect(200)).body).toEqual({ workspaces: [] });
    expect((await get(`/api/v1/workspaces/${workspaceId}`, 'bob').expect(200)).body.id).toBe(workspaceId);
    expect((await get(`/api/v1/workspaces/${elsewhere.workspace}`, 'alice').expect(404)).body).toEqual({ detail: 'Workspace not found' });
    expect((await get('/api/v1/workspaces/not-a-uuid', 'alice').expect(400)).body).toEqual({ detail: 'params.workspace_id: workspace_id must be a UUID' });
    expect((await get('/api/v1/workspaces?organization_id=nope', 'alice').expect(400)).body).toEqual({ detail: 'query.organization_id: organization_id must be a UUID' });
  });

  it('lists the members of a workspace, admins first, to its members only', async () => {
    const body = (await get('/api/v1/workspace/members', 'bob').expect(200)).body;
    expect(body.total).toBe(3);
    expect(body.members.map((member: { email: string; role: string }) => [member.email, member.role])).toEqual([
      [api.deps.defaultUser.email, 'admin'],
      ['alice@example.com', 'editor'],
      ['bob@example.com', 'viewer'],
    ]);
    expect(Object.keys(body.members[1]).sort()).toEqual(['created_at', 'email', 'firstName', 'lastName', 'role', 'user_id', 'username']);
    expect((await get(`/api/v1/workspace/members?workspace_id=${workspaceId}`, 'carol').expect(404)).body).toEqual({ detail: 'Workspace not found' });
    expect((await get('/api/v1/workspace/members', 'carol').expect(200)).body.members.map((member: { email: string }) => member.email)).toEqual(['carol@example.com']);
  });

  it("answers what the caller may do in a workspace", async () => {
    expect((await get('/api/v1/workspace/settings/access', 'bob').expect(200)).body).toEqual({ can_access: true, can_manage: false, role: 'viewer' });
    expect((await get('/api/v1/workspace/settings/access', 'admin').expect(200)).body).toEqual({ can_access: true, can_manage: true, role: 'admin' });
    expect((await get(`/api/v1/workspace/settings/access?workspace_id=${workspaceId}`, 'carol').expect(200)).body).toEqual({
      can_access: false,
      can_manage: false,
      role: null,
    });
  });

  it("lists the organizations of the caller's workspaces", async () => {
    expect((await get('/api/v1/organizations', 'alice').expect(200)).body.organizations.map((organization: { id: string }) => organization.id)).toEqual([organizationId]);
    expect((await get(`/api/v1/organizations/${organizationId}`, 'alice').expect(200)).body).toEqual({
      id: organizationId,
      name: expect.any(String),
      created_at: expect.stringMatching(/Z$/),
      updated_at: null,
    });
    expect((await get(`/api/v1/organizations/${elsewhere.organization}`, 'alice').expect(404)).body).toEqual({ detail: 'Organization not found' });
    await get(`/api/v1/organizations/${randomUUID()}`, 'alice').expect(404);
  });

  it('needs a login', async () => {
    for (const path of paths) await api.request.get(path).expect(401);
  });
});

describe('workspaces outside ONPREM with authentication', () => {
  it('answer 403 with authentication off, bad input too', async () => {
    const api = await startTestApi();
    try {
      const detail = { detail: 'Workspaces exist only with RUN_MODE=ONPREM and authentication enabled' };
      for (const path of paths) expect((await api.request.get(path).expect(403)).body).toEqual(detail);
      expect((await api.request.get('/api/v1/workspaces/not-a-uuid').expect(403)).body).toEqual(detail);
      expect((await api.request.put('/api/v1/workspace/members/not-a-uuid/role').send({ role: 'owner' }).expect(403)).body).toEqual(detail);
    } finally {
      await api.close();
    }
  });
});
