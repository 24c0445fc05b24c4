import { createDataset } from '../../db/repositories/datasets';
import { createUser } from '../../db/repositories/users';
import { Organization, Workspace } from '../../db/models';
import { startTestApi, type TestApi } from '../support/testStack';
import { loginCookie } from '../support/sessions';

const password = 'correct horse battery';

/** PUT /manage/{id}/invite and GET /manage/{id}/share with authentication on, between real accounts that log in. */
describe('sharing a dataset', () => {
  let api: TestApi;
  let datasetId: string;
  const cookies: Record<string, string> = {};
  const invite = (id: string, cookie: string, body: object) => api.request.put(`/api/v1/manage/${id}/invite`).set('Cookie', cookie).send(body);
  const members = (id: string, cookie: string) => api.request.get(`/api/v1/manage/${id}/share`).set('Cookie', cookie);

  beforeAll(async () => {
    api = await startTestApi({ DISABLE_AUTH: 'false' });
    const { db } = api.deps;
    const workspaceId = (await Workspace.query(db).first())!.id;
    const owner = await createUser(db, { email: 'owner@example.com', password, workspaceId, workspaceRole: 'editor' });
    for (const name of ['vera', 'eddie', 'colleague']) await createUser(db, { email: `${name}@example.com`, password, workspaceId, workspaceRole: 'viewer' });
    const elsewhere = await Workspace.query(db).insertAndFetch({
      organization_id: (await Organization.query(db).insertAndFetch({ name: 'elsewhere' })).id,
      name: 'elsewhere',
    });
    await createUser(db, { email: 'stranger@example.com', password, workspaceId: elsewhere.id, workspaceRole: 'admin' });
    datasetId = (await createDataset(db, { name: 'pets', ownerId: owner.id, workspaceId, status: 'READY' })).id;
    for (const name of ['owner', 'vera', 'eddie', 'colleague', 'stranger']) {
      cookies[name] = await loginCookie(api, `${name}@example.com`, password);
    }
  });
  afterAll(() => api.close());

  it('refuses bad input with 422 and changes nothing', async () => {
    const cases: Array<[object, string]> = [
      [{}, 'body.grant_to_user_email: grant_to_user_email is required'],
      [{ grant_to_user_email: 'not-an-email' }, 'body.grant_to_user_email: grant_to_user_email must be an email address'],
      [{ grant_to_user_email: 42 }, 'body.grant_to_user_email: grant_to_user_email is required'],
      [{ grant_to_user_email: 'vera@example.com', role: 'owner' }, 'body.role: role must be viewer or editor'],
      [{ grant_to_user_email: 'vera@example.com', role: 'admin' }, 'body.role: role must be viewer or editor'],
      [{ grant_to_user_email: `${'a'.repeat(400)}@example.com` }, 'body.grant_to_user_email: grant_to_user_email must be an email address'],
    ];
    for (const [body, detail] of cases) expect((await invite(datasetId, cookies.owner, body).expect(422)).body).toEqual({ detail });
    expect((await api.request.put('/api/v1/manage/not-a-uuid/invite').set('Cookie', cookies.owner).send({ grant_to_user_email: 'vera@example.com' }).expect(422)).body)
      .toEqual({ detail: 'params.dataset_id: dataset_id must be a UUID' });
    await api.request.put(`/api/v1/manage/${datasetId}/invite`).set('Cookie', cookies.owner).set('Content-Type', 'application/json').send('{"grant_to_user_email":').expect(422);
    await api.request.get('/api/v1/manage/not-a-uuid/share').set('Cookie', cookies.owner).expect(422);
    expect((await members(datasetId, cookies.owner).expect(200)).body).toEqual([{ email: 'owner@example.com', role: 'owner' }]);
  });

  it('answers 404 for an email that is not a registered account, a missing dataset, and a stranger; 401 without a session', async () => {
    expect((await invite(datasetId, cookies.owner, { grant_to_user_email: 'nobody@example.com' }).expect(404)).body).toEqual({
      detail: 'No registered account with this email',
    });
    const missing = '0b6b1b9e-5d0c-4c3e-9d6f-2f4f0f1a2b3c';
    expect((await invite(missing, cookies.owner, { grant_to_user_email: 'vera@example.com' }).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    expect((await members(missing, cookies.owner).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    expect((await invite(datasetId, cookies.stranger, { grant_to_user_email: 'stranger@example.com' }).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    expect((await members(datasetId, cookies.stranger).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    await api.request.put(`/api/v1/manage/${datasetId}/invite`).send({ grant_to_user_email: 'vera@example.com' }).expect(401);
    await api.request.get(`/api/v1/manage/${datasetId}/share`).expect(401);
    expect((await members(datasetId, cookies.owner).expect(200)).body).toHaveLength(1);
  });

  it('shares with a viewer, who then sees the dataset, may read but gets 403 on every write and on sharing', async () => {
    // Before: a colleague without a role is refused (403), and the dataset is not in their list.
    await api.request.get(`/api/v1/dataset/${datasetId}`).set('Cookie', cookies.vera).expect(403);
    expect((await api.request.get('/api/v1/datasets').set('Cookie', cookies.vera).expect(200)).body).toEqual([]);

    const shared = await invite(datasetId, cookies.owner, { grant_to_user_email: '  Vera@Example.com ' }).expect(200);
    expect(shared.text).toBe('null');
    expect((await members(datasetId, cookies.owner).expect(200)).body).toEqual([
      { email: 'owner@example.com', role: 'owner' },
      { email: 'vera@example.com', role: 'viewer' },
    ]);

    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).set('Cookie', cookies.vera).expect(200)).body).toMatchObject({ id: datasetId, owned_by: 'owner@example.com' });
    expect((await api.request.get('/api/v1/datasets').set('Cookie', cookies.vera).expect(200)).body.map((d: { id: string }) => d.id)).toEqual([datasetId]);
    await api.request.get(`/api/v1/dataset/${datasetId}/views`).set('Cookie', cookies.vera).expect(200);

    const needsEditor = { detail: 'This operation needs editor access to the dataset; you have viewer' };
    const needsOwner = { detail: 'This operation needs owner access to the dataset; you have viewer' };
    expect((await api.request.post(`/api/v1/dataset/${datasetId}/views`).set('Cookie', cookies.vera).field('name', 'mine').expect(403)).body).toEqual(needsEditor);
    expect((await api.request.post(`/api/v1/dataset/${datasetId}/tags`).set('Cookie', cookies.vera).send({ name: 'x' }).expect(403)).body).toEqual(needsEditor);
    expect((await api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).set('Cookie', cookies.vera).send({}).expect(403)).body).toEqual(needsEditor);
    expect((await invite(datasetId, cookies.vera, { grant_to_user_email: 'eddie@example.com' }).expect(403)).body).toEqual(needsOwner);
    expect((await members(datasetId, cookies.vera).expect(403)).body).toEqual(needsOwner);
    expect(await api.deps.db('saved_views').where({ dataset_id: datasetId })).toEqual([]);
  });

  it('shares with an editor, who may write but not share (403); a colleague without a role gets 403', async () => {
    await invite(datasetId, cookies.owner, { grant_to_user_email: 'eddie@example.com', role: 'editor' }).expect(200);
    await api.request.post(`/api/v1/dataset/${datasetId}/views`).set('Cookie', cookies.eddie).field('name', 'eddie view').expect(200);
    const needsOwner = { detail: 'This operation needs owner access to the dataset; you have editor' };
    expect((await invite(datasetId, cookies.eddie, { grant_to_user_email: 'colleague@example.com' }).expect(403)).body).toEqual(needsOwner);
    expect((await members(datasetId, cookies.eddie).expect(403)).body).toEqual(needsOwner);
    const noRole = { detail: 'You do not have permission to access this dataset' };
    expect((await invite(datasetId, cookies.colleague, { grant_to_user_email: 'colleague@example.com' }).expect(403)).body).toEqual(noRole);
    expect((await members(datasetId, cookies.colleague).expect(403)).body).toEqual(noRole);
    expect((await members(datasetId, cookies.owner).expect(200)).body).toEqual([
      { email: 'owner@example.com', role: 'owner' },
      { email: 'eddie@example.com', role: 'editor' },
      { email: 'vera@example.com', role: 'viewer' },
    ]);
  });

  it('sets the role of a member invited again, across organizations too, and never the owner\'s (400)', async () => {
    await invite(datasetId, cookies.owner, { grant_to_user_email: 'eddie@example.com', role: 'viewer' }).expect(200);
    await api.request.post(`/api/v1/dataset/${datasetId}/views`).set('Cookie', cookies.eddie).field('name', 'again').expect(403);
    expect((await invite(datasetId, cookies.owner, { grant_to_user_email: 'owner@example.com' }).expect(400)).body).toEqual({
      detail: "An owner's role cannot be changed by an invitation",
    });
    await invite(datasetId, cookies.owner, { grant_to_user_email: 'stranger@example.com' }).expect(200);
    await api.request.get(`/api/v1/dataset/${datasetId}`).set('Cookie', cookies.stranger).expect(200);
    expect((await members(datasetId, cookies.owner).expect(200)).body).toEqual([
      { email: 'owner@example.com', role: 'owner' },
      { email: 'eddie@example.com', role: 'viewer' },
      { email: 'stranger@example.com', role: 'viewer' },
      { email: 'vera@example.com', role: 'viewer' },
    ]);
  });
});
