import { headVersionId } from '../support/versions';
import { randomUUID } from 'node:crypto';
import { addDatasetMember, createDataset } from '../../db/repositories/datasets';
import { insertTask } from '../../db/repositories/tasks';
import { createUser } from '../../db/repositories/users';
import { Organization, Workspace } from '../../db/models';
import supertest from 'supertest';
import { createApp } from '../../api/app';
import { sdkToken } from '../support/sdkToken';
import { startTestApi, type TestApi } from '../support/testStack';

const password = 'correct horse battery';

describe('CLOUD auth: password login, API credentials, bearer JWTs', () => {
  let api: TestApi;
  let workspaceId: string;

  beforeAll(async () => {
    api = await startTestApi({ RUN_MODE: 'CLOUD', SECRET_KEY: 'test-secret-key-that-is-long-enough-123' });
    workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    await createUser(api.deps.db, { email: 'Alice@Example.com', password, workspaceId, workspaceRole: 'editor' });
    await createUser(api.deps.db, { email: 'bob@example.com', password, workspaceId, workspaceRole: 'editor' });
  });
  afterAll(() => api.close());

  async function login(email: string): Promise<string> {
    const response = await api.request.post('/api/v1/auth/login').send({ email, password }).expect(200);
    const cookie = (response.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('SESSION='));
    expect(cookie).toMatch(/HttpOnly/i);
    return cookie!.split(';')[0];
  }

  async function credentialsFor(email: string): Promise<{ api_key: string; api_secret: string }> {
    const response = await api.request.get('/api/v1/api_credentials').set('Cookie', await login(email)).expect(200);
    return response.body;
  }

  async function bearer(email: string): Promise<string> {
    const { api_key, api_secret } = await credentialsFor(email);
    return `Bearer ${await sdkToken(api_key, api_secret)}`;
  }

  it('refuses a wrong password or unknown email with 401 and sets no cookie', async () => {
    for (const body of [{ email: 'alice@example.com', password: 'wrong-password' }, { email: 'nobody@example.com', password }]) {
      const response = await api.request.post('/api/v1/auth/login').send(body).expect(401);
      expect(response.body).toEqual({ detail: 'Invalid email or password' });
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('gives API credentials only to a logged-in session, and never stores the secret in clear', async () => {
    expect((await api.request.get('/api/v1/api_credentials').expect(401)).body).toEqual({
      detail: 'A logged-in session (cookie SESSION) is required',
    });
    const credentials = await credentialsFor('alice@example.com');
    expect(credentials.api_key).toMatch(/^ak_/);
    expect(credentials.api_secret.length).toBeGreaterThanOrEqual(32);
    const stored = await api.deps.db('api_credentials').where({ api_key: credentials.api_key }).first();
    expect(JSON.stringify(stored)).not.toContain(credentials.api_secret);
    // A bearer token is not a session: it cannot mint more credentials.
    const token = await sdkToken(credentials.api_key, credentials.api_secret);
    await api.request.get('/api/v1/api_credentials').set('Authorization', `Bearer ${token}`).expect(401);
  });

  it('serves datasets to a valid bearer token and 401 to missing, expired, tampered or unknown tokens', async () => {
    const { api_key, api_secret } = await credentialsFor('alice@example.com');
    const ok = await api.request
      .get('/api/v1/datasets')
      .set('Authorization', `Bearer ${await sdkToken(api_key, api_secret)}`)
      .expect(200);
    expect(ok.body).toEqual([]);

    const missing = await api.request.get('/api/v1/datasets').expect(401);
    expect(missing.body).toEqual({ detail: 'Not authenticated: send Authorization: Bearer <token>' });
    expect(missing.headers['www-authenticate']).toBe('Bearer');

    const expired = await sdkToken(api_key, api_secret, { issuedAt: Math.floor(Date.now() / 1000) - 3600 });
    expect((await api.request.get('/api/v1/datasets').set('Authorization', `Bearer ${expired}`).expect(401)).body)
      .toEqual({ detail: 'Token expired' });
    const tampered = await sdkToken(api_key, `${api_secret}x`);
    expect((await api.request.get('/api/v1/datasets').set('Authorization', `Bearer ${tampered}`).expect(401)).body)
      .toEqual({ detail: 'Invalid token' });
    const unknownKid = await sdkToken('ak_nope', api_secret);
    expect((await api.request.get('/api/v1/datasets').set('Authorization', `Bearer ${unknownKid}`).expect(401)).body)
      .toEqual({ detail: 'Unknown API key' });
    await api.request.get('/api/v1/datasets').set('Authorization', 'Basic abc').expect(401);
  });

  it('does not accept the session cookie on data endpoints in CLOUD mode', async () => {
    await api.request.get('/api/v1/datasets').set('Cookie', await login('alice@example.com')).expect(401);
  });

  it('answers 403 for a colleague without access and 404 for a dataset of another organization', async () => {
    const { db } = api.deps;
    const alice = (await db('users').where({ email: 'alice@example.com' }).first()).id;
    const aliceDataset = await createDataset(db, { name: 'alice-only', ownerId: alice, workspaceId, status: 'READY' });
    const otherOrg = await Organization.query(db).insertAndFetch({ name: 'elsewhere' });
    const otherWorkspace = await Workspace.query(db).insertAndFetch({ organization_id: otherOrg.id, name: 'elsewhere' });
    const carol = await createUser(db, { email: 'carol@example.com', workspaceId: otherWorkspace.id, workspaceRole: 'admin' });
    const foreign = await createDataset(db, { name: 'carol-only', ownerId: carol.id, workspaceId: otherWorkspace.id, status: 'READY' });

    const asAlice = await bearer('alice@example.com');
    const mine = await api.request.get(`/api/v1/dataset/${aliceDataset.id}`).set('Authorization', asAlice).expect(200);
    expect(mine.body).toMatchObject({ id: aliceDataset.id, owned_by: 'alice@example.com' });
    expect((await api.request.get(`/api/v1/dataset/${foreign.id}`).set('Authorization', asAlice).expect(404)).body)
      .toEqual({ detail: 'Dataset not found' });

    const asBob = await bearer('bob@example.com');
    expect((await api.request.get(`/api/v1/dataset/${aliceDataset.id}`).set('Authorization', asBob).expect(403)).body)
      .toEqual({ detail: 'You do not have permission to access this dataset' });
    expect((await api.request.get('/api/v1/datasets').set('Authorization', asBob).expect(200)).body).toEqual([]);
    // Their tasks neither: a dataset_id filter answers as the dataset itself does.
    expect((await api.request.get(`/api/v1/tasks?dataset_id=${aliceDataset.id}`).set('Authorization', asBob).expect(403)).body)
      .toEqual({ detail: 'You do not have permission to access this dataset' });
    expect((await api.request.get(`/api/v1/tasks?dataset_id=${foreign.id}`).set('Authorization', asAlice).expect(404)).body)
      .toEqual({ detail: 'Dataset not found' });
  });

  it('lets a dataset viewer read but not add media or reindex (403), and changes nothing', async () => {
    const { db } = api.deps;
    const alice = (await db('users').where({ email: 'alice@example.com' }).first()).id;
    const bob = (await db('users').where({ email: 'bob@example.com' }).first()).id;
    const shared = await createDataset(db, { name: 'shared read-only', ownerId: alice, workspaceId, status: 'PARTIAL INDEX' });
    await db('datasets').where({ id: shared.id }).update({ embedding_config: JSON.stringify({ model: 'm', dim: 4 }) });
    await addDatasetMember(db, shared.id, bob, 'viewer');
    const asBob = await bearer('bob@example.com');
    await api.request.get(`/api/v1/dataset/${shared.id}`).set('Authorization', asBob).expect(200);
    const refused = await api.request
      .post(`/api/v1/dataset/${shared.id}/add_media`)
      .set('Authorization', asBob)
      .attach('files', Buffer.from('x'), 'a.jpg')
      .expect(403);
    expect(refused.body).toEqual({ detail: 'This operation needs editor access to the dataset; you have viewer' });
    await api.request.post(`/api/v1/dataset/${shared.id}/reindex`).set('Authorization', asBob).expect(403);
    expect((await db('datasets').where({ id: shared.id }).first()).status_new).toBe('PARTIAL INDEX');
    expect(await db('tasks').where({ dataset_id: shared.id })).toEqual([]);
  });

  it('refuses a dataset viewer every write on the owner\'s tasks, views and tags (403), changing nothing', async () => {
    const { db } = api.deps;
    const alice = (await db('users').where({ email: 'alice@example.com' }).first()).id;
    const viewerEmail = 'viewer-of-tasks@example.com';
    const viewer = await createUser(db, { email: viewerEmail, password, workspaceId, workspaceRole: 'viewer' });
    const shared = await createDataset(db, { name: 'owner work', ownerId: alice, workspaceId, status: 'ERROR' });
    await addDatasetMember(db, shared.id, viewer.id, 'viewer');
    const taskId = randomUUID();
    await insertTask(db, { taskId, datasetId: shared.id, taskType: 'DATASET_CREATION', createdBy: alice, input: {}, statusMessage: 'x' });
    await db('tasks').where({ task_id: taskId }).update({ status: 'FAILED' });
    const asAlice = await bearer('alice@example.com');
    const view = await api.request.post(`/api/v1/dataset/${shared.id}/views`).set('Authorization', asAlice).field('name', 'kept').expect(200);
    const asViewer = await bearer(viewerEmail);

    const needsEditor = { detail: 'This operation needs editor access to the dataset; you have viewer' };
    expect((await api.request.post(`/api/v1/tasks/${taskId}/retry`).set('Authorization', asViewer).expect(403)).body).toEqual(needsEditor);
    expect((await api.request.post(`/api/v1/tasks/${taskId}/abort`).set('Authorization', asViewer).expect(403)).body).toEqual(needsEditor);
    await api.request.delete(`/api/v1/dataset/${shared.id}/views/${view.body.id}`).set('Authorization', asViewer).expect(403);
    await api.request
      .post(`/api/v1/dataset/${shared.id}/views/${view.body.id}/alerting`)
      .set('Authorization', asViewer)
      .send({ request: { enabled: false } })
      .expect(403);
    await api.request.post(`/api/v1/dataset/${shared.id}/views`).set('Authorization', asViewer).field('name', 'mine').expect(403);
    await api.request.post(`/api/v1/dataset/${shared.id}/tags`).set('Authorization', asViewer).send({ name: 'x' }).expect(403);

    // Reads still work, and nothing changed.
    const views = await api.request.get(`/api/v1/dataset/${shared.id}/views`).set('Authorization', asViewer).expect(200);
    expect(views.body.views.map((v: { name: string; alerting_enabled: boolean }) => [v.name, v.alerting_enabled])).toEqual([['kept', true]]);
    const tasks = await api.request.get(`/api/v1/tasks?dataset_id=${shared.id}`).set('Authorization', asViewer).expect(200);
    expect(tasks.body.tasks.map((t: { status: string }) => t.status)).toEqual(['FAILED']);
    expect((await db('datasets').where({ id: shared.id }).first()).status_new).toBe('ERROR');
    expect(await db('tags').where({ version_id: await headVersionId(db, shared.id) })).toEqual([]);
  });

  it('lets a dataset viewer list snapshots but not take, edit, delete, restore or clone them (403)', async () => {
    const { db } = api.deps;
    const alice = (await db('users').where({ email: 'alice@example.com' }).first()).id;
    const viewerEmail = 'viewer-of-snapshots@example.com';
    const viewer = await createUser(db, { email: viewerEmail, password, workspaceId, workspaceRole: 'editor' });
    const shared = await createDataset(db, { name: 'snapshotted', ownerId: alice, workspaceId, status: 'READY' });
    await addDatasetMember(db, shared.id, viewer.id, 'viewer');
    const taken = await api.request
      .post(`/api/v1/dataset/${shared.id}/snapshot`)
      .set('Authorization', await bearer('alice@example.com'))
      .send({ name: 'kept' })
      .expect(200);
    const asViewer = await bearer(viewerEmail);
    const snapshot = `/api/v1/dataset/${shared.id}/snapshot/${taken.body.snapshot_id}`;
    expect((await api.request.get(`/api/v1/dataset/${shared.id}/snapshot`).set('Authorization', asViewer).expect(200)).body).toHaveLength(1);
    const needsEditor = { detail: 'This operation needs editor access to the dataset; you have viewer' };
    expect((await api.request.post(`/api/v1/dataset/${shared.id}/snapshot`).set('Authorization', asViewer).send({}).expect(403)).body).toEqual(needsEditor);
    await api.request.patch(snapshot).set('Authorization', asViewer).send({ name: 'mine' }).expect(403);
    await api.request.delete(snapshot).set('Authorization', asViewer).expect(403);
    await api.request.post(`${snapshot}/clone`).set('Authorization', asViewer).expect(403);
    expect((await api.request.post(`${snapshot}/restore`).set('Authorization', asViewer).expect(403)).body).toEqual({
      detail: 'This operation needs owner access to the dataset; you have viewer',
    });
    // Nothing changed.
    expect((await db('snapshots').where({ dataset_id: shared.id })).map((s: { name: string }) => s.name)).toEqual(['kept']);
    expect((await db('tasks').where({ dataset_id: shared.id }))).toEqual([]);
  });

  it('marks the session cookie Secure when the request came over HTTPS through a trusted proxy (TRUST_PROXY)', async () => {
    const loginOverHttps = (request: ReturnType<typeof supertest>) =>
      request.post('/api/v1/auth/login').set('X-Forwarded-Proto', 'https').send({ email: 'alice@example.com', password }).expect(200);
    const behindProxy = supertest(createApp({ ...api.deps, config: { ...api.deps.config, trustProxy: true } }).callback());
    expect(((await loginOverHttps(behindProxy)).headers['set-cookie'] as unknown as string[])[0]).toMatch(/;\s*secure/i);
    // Without TRUST_PROXY the header is anyone's to send and is not believed.
    expect(((await loginOverHttps(api.request)).headers['set-cookie'] as unknown as string[])[0]).not.toMatch(/;\s*secure/i);
  });

  it('ends the session on logout', async () => {
    const cookie = await login('bob@example.com');
    await api.request.post('/api/v1/auth/logout').set('Cookie', cookie).expect(200);
    await api.request.get('/api/v1/api_credentials').set('Cookie', cookie).expect(401);
  });

  it('locks out a disabled user even with a valid token', async () => {
    const token = await bearer('bob@example.com');
    await api.deps.db('users').where({ email: 'bob@example.com' }).update({ enabled: false });
    expect((await api.request.get('/api/v1/datasets').set('Authorization', token).expect(401)).body)
      .toEqual({ detail: 'User is disabled or no longer exists' });
  });
});
