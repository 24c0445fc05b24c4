import { randomUUID } from 'node:crypto';
import { API_ROUTES } from '../../api/specs';
import { createDataset } from '../../db/repositories/datasets';
import { Workspace } from '../../db/models';
import { statusRefusal, type DatasetOperation } from '../../lib/datasetStates';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { startTestApi, type TestApi } from '../support/testStack';

/** Routes the spec makes ask the state machine before their handler (datasetState: an operation). */
const guarded = API_ROUTES.filter((route) => route.datasetState && route.datasetState !== 'service' && route.datasetState !== 'any');

/**
 * Writes a task would lose (tags, saved views, the name: a restore drops what it did not copy) are refused with
 * 409 and the reason while a task holds the dataset, by the guard their route declares; they change nothing.
 */
describe('writes declared in their route spec, while a task holds the dataset', () => {
  let api: TestApi;
  let datasetId: string;
  let tagId: string;
  let viewId: string;
  let mediaId: string;

  beforeAll(async () => {
    api = await startTestApi();
    const admin = api.deps.defaultUser;
    const workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    const dataset = await createDataset(api.deps.db, { name: 'held', ownerId: admin.id, workspaceId, status: 'READY' });
    datasetId = dataset.id;
    mediaId = randomUUID();
    await api.deps.db('media').insert({ id: mediaId, version_id: dataset.head_version_id, kind: 'IMAGE', batch_id: randomUUID(), file_name: 'a.jpg', blob_sha256: 'a'.repeat(64) });
    tagId = (await api.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'kept' }).expect(201)).body.id;
    viewId = (await api.request.post(`/api/v1/dataset/${datasetId}/views`).field('name', 'kept').expect(200)).body.id;
  });
  afterAll(() => api?.close());

  const requests: Record<string, (path: string) => { method: string; body?: object; form?: Record<string, string> }> = {
    'patch /dataset/:dataset_id': () => ({ method: 'patch', body: { name: 'renamed' } }),
    'post /dataset/:dataset_id/tags': () => ({ method: 'post', body: { name: 'new' } }),
    'post /dataset/:dataset_id/selections': () => ({ method: 'post', body: { strategy: 'diversity', n: 1, tag: 'chosen' } }),
    'delete /dataset/:dataset_id/tags/:tag_id': () => ({ method: 'delete' }),
    'post /dataset/:dataset_id/tags/:tag_id/media': () => ({ method: 'post', body: { media_ids: [mediaId] } }),
    'delete /dataset/:dataset_id/tags/:tag_id/media': () => ({ method: 'delete', body: { media_ids: [mediaId] } }),
    'post /dataset/:dataset_id/views': () => ({ method: 'post', form: { name: 'new' } }),
    'patch /dataset/:dataset_id/views/:view_id': () => ({ method: 'patch', body: { name: 'renamed' } }),
    'delete /dataset/:dataset_id/views/:view_id': () => ({ method: 'delete' }),
    'post /dataset/:dataset_id/views/:view_id/alerting': () => ({ method: 'post', body: { request: { enabled: false } } }),
  };

  it('covers every guarded route', () => {
    expect(guarded.map((route) => `${route.method} ${route.path}`).sort()).toEqual(Object.keys(requests).sort());
  });

  for (const status of ['READ ONLY', 'INDEXING'] as const) {
    it(`refuses each guarded write with 409 while the dataset is ${status}, changing nothing`, async () => {
      await api.deps.db('datasets').where({ id: datasetId }).update({ status_new: status });
      try {
        const before = await databaseFingerprint(api.deps.db);
        for (const route of guarded) {
          const path = `/api/v1${route.path}`.replace(':dataset_id', datasetId).replace(':tag_id', tagId).replace(':view_id', viewId);
          const { method, body, form } = requests[`${route.method} ${route.path}`](path);
          let request = api.request[method as 'post'](path);
          if (form) for (const [name, value] of Object.entries(form)) request = request.field(name, value);
          const answer = await (body ? request.send(body) : request);
          expect([`${route.method} ${route.path}`, answer.status, answer.body]).toEqual([
            `${route.method} ${route.path}`,
            409,
            { detail: statusRefusal(datasetId, route.datasetState as DatasetOperation, status) },
          ]);
          // A write is refused with what holds the dataset; a task start (a selection) with the status it needs.
          if (route.datasetState === 'curate') expect(answer.body.detail).toMatch(/a running task holds it; change it once the task has ended$/);
        }
        expect(await databaseFingerprint(api.deps.db)).toEqual(before);
      } finally {
        await api.deps.db('datasets').where({ id: datasetId }).update({ status_new: 'READY' });
      }
    });
  }

  it('lets the same writes through once the dataset is READY again', async () => {
    await api.request.patch(`/api/v1/dataset/${datasetId}`).send({ name: 'renamed' }).expect(200);
    expect((await api.request.post(`/api/v1/dataset/${datasetId}/tags/${tagId}/media`).send({ media_ids: [mediaId] }).expect(200)).body).toEqual({ tagged: 1 });
    await api.request.patch(`/api/v1/dataset/${datasetId}/views/${viewId}`).send({ name: 'renamed' }).expect(200);
  });

  it("tells nothing of a dataset the user cannot see: another's held dataset answers 404", async () => {
    await api.request.patch(`/api/v1/dataset/${randomUUID()}`).send({ name: 'x' }).expect(404);
  });
});
