import supertest from 'supertest';
import { createApp } from '../../api/app';
import { addDatasetMember, createDataset } from '../../db/repositories/datasets';
import { createUser } from '../../db/repositories/users';
import { loginCookie } from '../support/sessions';
import { Organization, Workspace } from '../../db/models';
import { startTestApi, type TestApi } from '../support/testStack';

describe('datasets API, ONPREM with auth disabled', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('acts as the default admin without any header and lists only datasets the caller can see', async () => {
    const { db, defaultUser } = api.deps;
    const workspaceId = (await Workspace.query(db).first())!.id;
    const own = await createDataset(db, { name: 'birds', ownerId: defaultUser.id, workspaceId, status: 'READY' });
    const otherOrg = await Organization.query(db).insertAndFetch({ name: 'other' });
    const otherWorkspace = await Workspace.query(db).insertAndFetch({ organization_id: otherOrg.id, name: 'other' });
    const stranger = await createUser(db, { email: 'stranger@example.com', workspaceId: otherWorkspace.id, workspaceRole: 'admin' });
    await createDataset(db, { name: 'hidden', ownerId: stranger.id, workspaceId: otherWorkspace.id, status: 'READY' });

    const response = await api.request.get('/api/v1/datasets').expect(200);
    expect(response.body).toEqual([
      {
        id: own.id,
        display_name: 'birds',
        status: 'READY',
        status_new: 'READY',
        progress: 0,
        owned_by: defaultUser.email,
        created_at: own.created_at.toISOString(),
        n_images: 0,
        n_videos: 0,
        operations: expect.objectContaining({ export: { can_start: true, refusal: null } }),
      },
    ]);
  });

  it('says which operations may start now and why not, as the refused request answers (issue 51 item 4)', async () => {
    const { db, defaultUser } = api.deps;
    const workspaceId = (await Workspace.query(db).first())!.id;
    const dataset = await createDataset(db, { name: 'half indexed', ownerId: defaultUser.id, workspaceId, status: 'PARTIAL INDEX' });
    const { operations } = (await api.request.get(`/api/v1/dataset/${dataset.id}`).expect(200)).body as { operations: Record<string, { can_start: boolean; refusal: string | null }> };
    expect(Object.keys(operations)).toEqual(
      expect.arrayContaining(['export', 'add_media', 'reindex', 'enrich', 'snapshot', 'restore', 'delete', 'check_labels', 'propagate_labels', 'import_metadata', 'curate']),
    );
    expect(operations.export).toEqual({ can_start: false, refusal: 'Dataset is not READY (status PARTIAL INDEX)' });
    expect(operations.enrich.can_start).toBe(false);
    for (const operation of ['add_media', 'reindex', 'snapshot', 'restore', 'delete', 'check_labels', 'curate']) expect(operations[operation]).toEqual({ can_start: true, refusal: null });
    const refused = await api.request.get(`/api/v1/dataset/${dataset.id}/export_context_async`).query({ file_name: 'x', export_format: 'json' }).expect(409);
    expect(refused.body).toEqual({ detail: operations.export.refusal });

    await db('datasets').where({ id: dataset.id }).update({ status_new: 'READ ONLY' });
    const held = (await api.request.get(`/api/v1/dataset/${dataset.id}`).expect(200)).body.operations as typeof operations;
    expect(Object.values(held).filter((offer) => offer.can_start)).toEqual([{ can_start: true, refusal: null }]); // clone, from a snapshot
    expect(held.snapshot.refusal).toBe(`Dataset ${dataset.id} is READ ONLY; a snapshot needs status READY or PARTIAL INDEX`);
    expect((await api.request.post(`/api/v1/dataset/${dataset.id}/snapshot`).send({ name: 'now' }).expect(409)).body).toEqual({ detail: held.snapshot.refusal });
  });

  it('returns one dataset with the legacy status derived from status_new', async () => {
    const { db, defaultUser } = api.deps;
    const workspaceId = (await Workspace.query(db).first())!.id;
    const dataset = await createDataset(db, { name: 'growing', ownerId: defaultUser.id, workspaceId, status: 'READ ONLY' });
    const response = await api.request.get(`/api/v1/dataset/${dataset.id}`).expect(200);
    expect(response.body).toMatchObject({ id: dataset.id, display_name: 'growing', status_new: 'READ ONLY', status: 'UPDATING' });
  });

  it('answers 404 Dataset not found for an unknown or foreign id and 422 for a malformed one', async () => {
    const unknown = await api.request.get('/api/v1/dataset/6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11').expect(404);
    expect(unknown.body).toEqual({ detail: 'Dataset not found' });
    const foreign = (await api.deps.db('datasets').where({ display_name: 'hidden' }).first()).id;
    expect((await api.request.get(`/api/v1/dataset/${foreign}`).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    const malformed = await api.request.get('/api/v1/dataset/not-a-uuid').expect(422);
    expect(malformed.body).toEqual({ detail: 'params.dataset_id: dataset_id must be a UUID' });
  });

  it('renames a dataset, the name trimmed and checked as at creation, changing nothing on bad input (422), an unknown or foreign dataset (404) or a viewer (403)', async () => {
    const { db, defaultUser } = api.deps;
    const workspaceId = (await Workspace.query(db).first())!.id;
    const dataset = await createDataset(db, { name: 'to rename', ownerId: defaultUser.id, workspaceId, status: 'READY' });
    await createDataset(db, { name: 'taken', ownerId: defaultUser.id, workspaceId, status: 'READY' });
    const url = `/api/v1/dataset/${dataset.id}`;
    const renamed = (await api.request.patch(url).send({ name: '  street scenes  ' }).expect(200)).body;
    expect(renamed).toMatchObject({ id: dataset.id, display_name: 'street scenes', status_new: 'READY', owned_by: defaultUser.email });
    expect((await api.request.get(url).expect(200)).body.display_name).toBe('street scenes');
    // As at creation, two datasets may share a name.
    await api.request.patch(url).send({ name: 'taken' }).expect(200);

    const refusals: Array<[object, string]> = [
      [{}, 'body.name: name is required'],
      [{ name: '   ' }, 'body.name: name is required'],
      [{ name: 42 }, 'body.name: name must be a string'],
      [{ name: 'x'.repeat(256) }, 'body.name: name must be at most 255 characters'],
    ];
    for (const [body, detail] of refusals) expect((await api.request.patch(url).send(body).expect(422)).body).toEqual({ detail });
    expect((await api.request.patch('/api/v1/dataset/not-a-uuid').send({ name: 'x' }).expect(422)).body).toEqual({ detail: 'params.dataset_id: dataset_id must be a UUID' });
    expect((await api.request.patch('/api/v1/dataset/6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11').send({ name: 'x' }).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    const foreign = (await db('datasets').where({ display_name: 'hidden' }).first()).id;
    expect((await api.request.patch(`/api/v1/dataset/${foreign}`).send({ name: 'mine now' }).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    expect((await db('datasets').where({ id: foreign }).first()).display_name).toBe('hidden');

    const viewer = await createUser(db, { email: 'rename-viewer@example.com', password: 'rename-viewer-1', workspaceId, workspaceRole: 'viewer' });
    await addDatasetMember(db, dataset.id, viewer.id, 'viewer');
    const secured = { request: supertest(createApp({ ...api.deps, config: { ...api.deps.config, disableAuth: false } }).callback()) };
    const cookie = await loginCookie(secured, 'rename-viewer@example.com', 'rename-viewer-1');
    expect((await secured.request.patch(url).set('Cookie', cookie).send({ name: 'by a viewer' }).expect(403)).body).toEqual({
      detail: 'This operation needs editor access to the dataset; you have viewer',
    });
    await addDatasetMember(db, dataset.id, viewer.id, 'editor');
    expect((await secured.request.patch(url).set('Cookie', cookie).send({ name: 'by an editor' }).expect(200)).body.display_name).toBe('by an editor');
  });

  it('answers every error as JSON {detail}', async () => {
    expect((await api.request.get('/api/v1/no-such-route').expect(404)).body).toEqual({ detail: 'Not Found' });
    expect((await api.request.delete('/api/v1/datasets').expect(405)).body).toEqual({ detail: 'Method Not Allowed' });
    const malformed = await api.request
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send('{"email": ')
      .expect(422);
    expect(malformed.body.detail).toMatch(/^Malformed request body/);
  });

  it('echoes a caller request id and creates one otherwise', async () => {
    const given = await api.request.get('/api/v1/datasets').set('X-Request-Id', 'abc-123').expect(200);
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await api.request.get('/api/v1/datasets').expect(200);
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
