import supertest from 'supertest';
import { createApp } from '../../api/app';
import { addDatasetMember, createDataset } from '../../db/repositories/datasets';
import { createUser } from '../../db/repositories/users';
import { loginCookie } from '../support/sessions';
import { Workspace } from '../../db/models';
import { startTestApi, type TestApi } from '../support/testStack';

describe('saved views: create, list, delete, trend, alerting', () => {
  let api: TestApi;
  let datasetId: string;
  let otherDatasetId: string;

  beforeAll(async () => {
    api = await startTestApi();
    const workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    const owner = api.deps.defaultUser.id;
    datasetId = (await createDataset(api.deps.db, { name: 'pets', ownerId: owner, workspaceId, status: 'READY' })).id;
    otherDatasetId = (await createDataset(api.deps.db, { name: 'cars', ownerId: owner, workspaceId, status: 'READY' })).id;
  });
  afterAll(() => api.close());

  const views = (dataset = datasetId) => `/api/v1/dataset/${dataset}/views`;

  it('creates a monitored view from a multipart form with every default of the spec', async () => {
    const vql = JSON.stringify([{ issues: { op: 'issue', value: 'blur', mode: 'in' } }]);
    const created = (await api.request.post(views()).query({ entity_type: 'IMAGES', threshold: 0.4, caption: 'dogs', vql }).field('name', 'blurry dogs').expect(200)).body;
    expect(created).toEqual({
      id: expect.any(String),
      dataset_id: datasetId,
      name: 'blurry dogs',
      created_at: expect.stringMatching(/Z$/),
      created_by: { user_id: api.deps.defaultUser.id, email: api.deps.defaultUser.email, name: api.deps.defaultUser.email },
      filters: { entity_type: 'IMAGES', threshold: '0.4', caption: 'dogs', vql: JSON.parse(vql) },
      stats: { n_images: -1, n_objects: -1, n_video_frames: -1 },
      monitoring_enabled: true,
      monitoring_started_at: expect.stringMatching(/Z$/),
      alerting_enabled: true,
      total_results: 0,
      last_results: null,
    });
    const defaults = (await api.request.post(views()).field('name', 'everything').expect(200)).body;
    expect(defaults.filters).toEqual({ entity_type: 'IMAGES', threshold: '0', caption: null, vql: [] });
    expect((await api.request.get(views()).expect(200)).body.views.map((v: { name: string }) => v.name)).toEqual(['blurry dogs', 'everything']);
  });

  it('refuses a duplicate name, missing name, bad threshold, bad VQL and file parts', async () => {
    await api.request.post(views()).field('name', 'dup').expect(200);
    expect((await api.request.post(views()).field('name', 'dup').expect(422)).body).toEqual({ detail: 'A view named "dup" already exists in this dataset' });
    await api.request.post(views(otherDatasetId)).field('name', 'dup').expect(200);
    expect((await api.request.post(views()).field('other', 'x').expect(422)).body).toEqual({ detail: 'name is required (form field)' });
    await api.request.post(views()).query({ threshold: 1.5 }).field('name', 'x').expect(422);
    await api.request.post(views()).query({ entity_type: 'PEOPLE' }).field('name', 'x').expect(422);
    expect((await api.request.post(views()).query({ vql: '[{"colour":1}]' }).field('name', 'x').expect(422)).body.detail).toMatch(/^vql\[0\]: unknown key "colour"/);
    await api.request.post(views()).attach('name', Buffer.from('x'), 'name.txt').expect(422);
    await api.request.post('/api/v1/dataset/6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11/views').field('name', 'x').expect(404);
    expect((await api.request.get(views()).expect(200)).body.views.map((v: { name: string }) => v.name)).not.toContain('x');
  });

  it('shows an empty trend, toggles alerting, answers 404 for a view of another dataset, and deletes', async () => {
    const view = (await api.request.post(views()).field('name', 'trend me').expect(200)).body;
    expect((await api.request.get(`${views()}/${view.id}/trend`).expect(200)).body).toEqual({ points: [], total_results: 0, last_results: null });
    expect((await api.request.post(`${views()}/${view.id}/alerting`).send({ request: { enabled: false } }).expect(200)).body).toEqual({ alerting_enabled: false });
    expect((await api.request.get(views()).expect(200)).body.views.find((v: { id: string }) => v.id === view.id)).toMatchObject({ alerting_enabled: false, monitoring_enabled: true });
    await api.request.post(`${views()}/${view.id}/alerting`).send({ enabled: true }).expect(422);
    await api.request.get(`${views(otherDatasetId)}/${view.id}/trend`).expect(404);
    await api.request.post(`${views(otherDatasetId)}/${view.id}/alerting`).send({ request: { enabled: true } }).expect(404);
    await api.request.delete(`${views(otherDatasetId)}/${view.id}`).expect(404);

    const deleted = await api.request.delete(`${views()}/${view.id}`).expect(200);
    expect(deleted.body).toBeNull();
    await api.request.delete(`${views()}/${view.id}`).expect(404);
    await api.request.get(`${views()}/${view.id}/trend`).expect(404);

    await api.deps.db('saved_views').where({ name: 'everything' }).update({ monitoring_enabled: false });
    const unmonitored = (await api.deps.db('saved_views').where({ name: 'everything' }).first()).id;
    expect((await api.request.get(`${views()}/${unmonitored}/trend`).expect(400)).body).toEqual({ detail: 'Monitoring is not enabled for this view' });
  });

  it('renames a view, refusing a taken or empty name (422), another dataset\'s view (404) and a viewer (403), changing nothing', async () => {
    const view = (await api.request.post(views()).field('name', 'to rename').expect(200)).body;
    await api.request.post(views()).field('name', 'taken').expect(200);
    const renamed = (await api.request.patch(`${views()}/${view.id}`).send({ name: '  renamed  ' }).expect(200)).body;
    expect(renamed).toMatchObject({ id: view.id, name: 'renamed', filters: view.filters, monitoring_enabled: true });
    expect((await api.request.patch(`${views()}/${view.id}`).send({ name: 'taken' }).expect(422)).body).toEqual({ detail: 'A view named "taken" already exists in this dataset' });
    expect((await api.request.patch(`${views()}/${view.id}`).send({ name: ' ' }).expect(422)).body).toEqual({ detail: 'body.name: name is required (form field)' });
    await api.request.patch(`${views()}/${view.id}`).send({}).expect(422);
    await api.request.patch(`${views(otherDatasetId)}/${view.id}`).send({ name: 'elsewhere' }).expect(404);
    await api.request.patch(`${views()}/00000000-0000-4000-8000-000000000000`).send({ name: 'ghost' }).expect(404);

    const viewer = await createUser(api.deps.db, { email: 'view-reader@example.com', password: 'view-reader-1', workspaceId: (await Workspace.query(api.deps.db).first())!.id, workspaceRole: 'viewer' });
    await addDatasetMember(api.deps.db, datasetId, viewer.id, 'viewer');
    // The same API with logins on, where a viewer's cookie stands for the viewer.
    const secured = { request: supertest(createApp({ ...api.deps, config: { ...api.deps.config, disableAuth: false } }).callback()) };
    const cookie = await loginCookie(secured, 'view-reader@example.com', 'view-reader-1');
    expect((await secured.request.patch(`${views()}/${view.id}`).set('Cookie', cookie).send({ name: 'by a viewer' }).expect(403)).body).toEqual({
      detail: 'This operation needs editor access to the dataset; you have viewer',
    });
    expect((await api.deps.db('saved_views').where({ id: view.id }).first()).name).toBe('renamed');
  });
});
