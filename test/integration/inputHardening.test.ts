import { randomUUID } from 'node:crypto';
import { Workspace } from '../../db/models';
import { createDataset } from '../../db/repositories/datasets';
import { startTestApi, type TestApi } from '../support/testStack';

const NUL = '\u0000';

describe('input that used to reach Postgres or the VQL engine as a 500', () => {
  let api: TestApi;
  let datasetId: string;

  beforeAll(async () => {
    api = await startTestApi();
    const workspace = await Workspace.query(api.deps.db).first();
    const dataset = await createDataset(api.deps.db, { name: 'inputs', ownerId: api.deps.defaultUser.id, workspaceId: workspace!.id, status: 'READY' });
    datasetId = dataset.id;
  });
  afterAll(() => api.close());

  const explore = (query: Record<string, string>) => api.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', ...query });
  const createView = (vql: string) => api.request.post(`/api/v1/dataset/${datasetId}/views`).query({ vql }).field('name', `view-${randomUUID()}`);

  it('refuses NUL characters in names, emails, filters, labels, form fields and VQL with 422 {detail}', async () => {
    const refusals = [
      api.request.get('/api/v1/ingestion/new_dataset').query({ dataset_name: `pets${NUL}` }),
      api.request.get('/api/v1/tasks').query({ dataset_name: `a${NUL}b` }),
      api.request.get('/api/v1/tasks').query({ created_by: `x${NUL}@example.com` }),
      api.request.post('/api/v1/auth/login').send({ email: `admin${NUL}@localhost.localdomain`, password: 'whatever-password' }),
      api.request.post(`/api/v1/dataset/${datasetId}/views`).type('form').send({ name: `bad${NUL}name` }),
      api.request.post(`/api/v1/dataset/${datasetId}/views`).field('name', `bad${NUL}name`),
      explore({ labels: JSON.stringify([`cat${NUL}`]) }),
      explore({ labels: '["cat\\u0000"]' }),
      explore({ caption: `red${NUL}car` }),
      explore({ vql: '[{"text":{"op":"fts","value":"red\\u0000car"}}]' }),
      createView('[{"text":{"op":"fts","value":"red\\u0000car"}}]'),
      createView('[{"labels":{"op":"one_of","value":["\\u0000"]}}]'),
      api.request.get(`/api/v1/dataset/${datasetId}/views/%00`),
    ];
    for (const response of await Promise.all(refusals)) {
      expect({ url: response.request.url, status: response.status, body: response.body }).toEqual({
        url: response.request.url,
        status: 422,
        body: { detail: expect.stringMatching(/NUL/) },
      });
    }
    expect((await api.request.get(`/api/v1/dataset/${datasetId}/views`).expect(200)).body.views).toEqual([]);
  });

  it('refuses VQL keys that name Object.prototype members with 422 instead of crashing the parser', async () => {
    for (const key of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const vql = `[{"${key}":{"op":"is","value":"x"}}]`;
      expect((await explore({ vql }).expect(422)).body).toEqual({ detail: expect.stringContaining(`unknown key "${key}"`) });
      expect((await createView(vql).expect(422)).body).toEqual({ detail: expect.stringContaining(`unknown key "${key}"`) });
    }
  });

  it('says why a dataset_name is refused: missing, empty, or over 255 characters', async () => {
    const newDataset = (query: Record<string, string | string[]>) => api.request.get('/api/v1/ingestion/new_dataset').query(query);
    expect((await newDataset({ dataset_name: 'x'.repeat(256) }).expect(400)).body).toEqual({ detail: 'dataset_name must be at most 255 characters' });
    expect((await newDataset({}).expect(400)).body).toEqual({ detail: 'dataset_name is required' });
    expect((await newDataset({ dataset_name: '  ' }).expect(400)).body).toEqual({ detail: 'dataset_name is required' });
    expect((await newDataset({ dataset_name: ['a', 'b'] }).expect(400)).body).toEqual({ detail: 'dataset_name must be a single string' });
    await newDataset({ dataset_name: 'x'.repeat(255) }).expect(200);
  });

  it('keeps a JSON body over the limit a 413 with {detail}', async () => {
    const huge = { request: { enabled: true, padding: 'p'.repeat(2 * 1024 * 1024) } };
    const response = await api.request.post(`/api/v1/dataset/${datasetId}/views/${randomUUID()}/alerting`).send(huge).expect(413);
    expect(response.body).toEqual({ detail: expect.stringMatching(/^Malformed request body: /) });
  });

  it('finds a task by the very start_time it printed: start_time_from = start_time_to is inclusive at millisecond precision', async () => {
    const taskId = randomUUID();
    await api.deps.db('tasks').insert({
      task_id: taskId,
      dataset_id: datasetId,
      task_type: 'DATASET_CREATION',
      status: 'COMPLETED',
      created_by: api.deps.defaultUser.id,
      // Postgres keeps microseconds; the API prints milliseconds.
      start_time: api.deps.db.raw("'2026-03-04T05:06:07.123987Z'::timestamptz"),
      end_time: api.deps.db.raw("'2026-03-04T05:16:07Z'::timestamptz"),
    });
    const listed = (await api.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200)).body.tasks;
    const printed = listed.find((task: { task_id: string }) => task.task_id === taskId).start_time as string;
    expect(printed).toBe('2026-03-04T05:06:07.123Z');

    const window = { start_time_from: printed, start_time_to: printed };
    const found = (await api.request.get('/api/v1/tasks').query({ dataset_id: datasetId, ...window }).expect(200)).body;
    expect(found.tasks.map((task: { task_id: string }) => task.task_id)).toEqual([taskId]);
    const filters = (await api.request.get('/api/v1/tasks/filters').query(window).expect(200)).body;
    expect(filters.dataset_ids).toEqual([datasetId]);
    // The next millisecond is outside the window.
    const after = { start_time_from: '2026-03-04T05:06:07.124Z', start_time_to: '2026-03-04T05:06:08Z' };
    expect((await api.request.get('/api/v1/tasks').query({ dataset_id: datasetId, ...after }).expect(200)).body.tasks).toEqual([]);
  });
});
