import { randomUUID } from 'node:crypto';
import { Workspace } from '../../db/models';
import { createDataset } from '../../db/repositories/datasets';
import { createUser } from '../../db/repositories/users';
import { loginCookie } from '../support/sessions';
import { sharedDatasetWithViewer } from '../support/sharedDataset';
import { startTestApi, type TestApi } from '../support/testStack';

const UNKNOWN = '6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11';

/** The task a 202 named in its Location header (the contract gives these answers an empty body). */
function locatedTask(response: { status: number; text: string; headers: Record<string, string> }): string {
  expect(response.status).toBe(202);
  expect(response.text).toBe('');
  const match = /^\/api\/v1\/tasks\/([0-9a-f-]{36})$/.exec(response.headers.location ?? '');
  expect(match).not.toBeNull();
  return match![1];
}

// No worker: the tasks started here stay queued, which is all the answers about them need.
describe('GET /tasks/{task_id}, the task id of reindex, restore and clone, and GET /dataset/{id}/media', () => {
  let api: TestApi;
  let datasetId: string;
  let owner: string;
  let viewer: string;
  let outsider: string;
  const mediaIds: string[] = [];
  let discardedId: string;

  beforeAll(async () => {
    api = await startTestApi({ DISABLE_AUTH: 'false' });
    const { db } = api.deps;
    let mediaId: string;
    ({ datasetId, mediaId } = await sharedDatasetWithViewer(db, { class: 'cat' }));
    mediaIds.push(mediaId);
    const { head_version_id: versionId } = await db('datasets').where({ id: datasetId }).first('head_version_id');
    for (let index = 0; index < 6; index += 1) {
      const id = randomUUID();
      mediaIds.push(id);
      await db('media').insert({
        id,
        version_id: versionId,
        kind: 'IMAGE',
        batch_id: randomUUID(),
        file_name: `more/${index}.jpg`,
        blob_sha256: String(index).repeat(64),
        size_bytes: 1000 + index,
        width: 64,
        height: 48,
        custom_metadata: JSON.stringify({ class: index % 2 ? 'dog' : ' cat ' }),
      });
    }
    await db('dataset_versions').where({ id: versionId }).update({ label_quality: { label_field: 'class' } });
    // more/1.jpg, a copy a duplicate review discarded.
    discardedId = mediaIds[2];
    await db('duplicate_decisions').insert({ version_id: versionId, media_id: discardedId, decision_id: randomUUID(), role: 'discard' });
    mediaIds.sort();
    // An editor of the same workspace the dataset is not shared with.
    const workspaceId = (await Workspace.query(db).first())!.id;
    await createUser(db, { email: 'outsider@example.com', password: 'outsider-password', workspaceId, workspaceRole: 'editor' });
    [owner, viewer, outsider] = await Promise.all([
      loginCookie(api, 'owner@example.com', 'owner-password'),
      loginCookie(api, 'viewer@example.com', 'viewer-password'),
      loginCookie(api, 'outsider@example.com', 'outsider-password'),
    ]);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('lists every media item a page at a time, in a stable order, to the owner and a viewer', async () => {
    const url = `/api/v1/dataset/${datasetId}/media`;
    for (const cookie of [owner, viewer]) {
      const pages = [];
      for (let page = 1; page <= 3; page += 1) pages.push((await api.request.get(url).set('Cookie', cookie).query({ page, page_size: 3 }).expect(200)).body);
      expect(pages.map((body) => [body.total, body.page, body.page_size, body.media.length])).toEqual([
        [7, 1, 3, 3],
        [7, 2, 3, 3],
        [7, 3, 3, 1],
      ]);
      expect(pages.flatMap((body) => body.media.map((item: { media_id: string }) => item.media_id))).toEqual(mediaIds);
    }
    const all = (await api.request.get(url).set('Cookie', viewer).expect(200)).body;
    expect(all).toMatchObject({ total: 7, page: 1, page_size: 100 });
    const first = all.media.find((item: { file_name: string }) => item.file_name === 'more/0.jpg');
    expect(first).toEqual({
      media_id: expect.any(String),
      file_name: 'more/0.jpg',
      kind: 'IMAGE',
      video_id: null,
      class: 'cat',
      size_bytes: 1000,
      width: 64,
      height: 48,
      discarded: false,
      created_at: expect.stringMatching(/Z$/),
    });
    expect(all.media.filter((item: { discarded: boolean }) => item.discarded).map((item: { media_id: string }) => item.media_id)).toEqual([discardedId]);
    expect(all.media.map((item: { class: string }) => item.class).sort()).toEqual(['cat', 'cat', 'cat', 'cat', 'dog', 'dog', 'dog']);
    // Past the last page: an empty page, with the total.
    expect((await api.request.get(url).set('Cookie', owner).query({ page: 9, page_size: 3 }).expect(200)).body).toEqual({ media: [], total: 7, page: 9, page_size: 3 });
  });

  it('refuses bad paging (422), a malformed or unknown dataset, a user it is not shared with and a caller without a session', async () => {
    const url = `/api/v1/dataset/${datasetId}/media`;
    const refusals: Array<[Record<string, string>, string]> = [
      [{ page: '0' }, 'query.page: page starts at 1'],
      [{ page: 'two' }, 'query.page: page must be an integer'],
      [{ page: '1.5' }, 'query.page: page must be an integer'],
      [{ page_size: '0' }, 'query.page_size: page_size must be between 1 and 1000'],
      [{ page_size: '1001' }, 'query.page_size: page_size must be between 1 and 1000'],
    ];
    for (const [query, detail] of refusals) {
      expect((await api.request.get(url).set('Cookie', owner).query(query).expect(422)).body).toEqual({ detail });
    }
    expect((await api.request.get('/api/v1/dataset/not-a-uuid/media').set('Cookie', owner).expect(422)).body.detail).toMatch(/^params\.dataset_id: /);
    expect((await api.request.get(`/api/v1/dataset/${UNKNOWN}/media`).set('Cookie', owner).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    // As the dataset itself answers the outsider.
    const dataset = await api.request.get(`/api/v1/dataset/${datasetId}`).set('Cookie', outsider);
    expect(dataset.status).toBe(403);
    expect((await api.request.get(url).set('Cookie', outsider).expect(403)).body).toEqual(dataset.body);
    await api.request.get(url).expect(401);
  });

  it('names the task of a restore, a clone and a reindex in Location; GET /tasks/{id} shows it to whoever may read its dataset', async () => {
    const snapshot = (await api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).set('Cookie', owner).send({ name: 'before' }).expect(200)).body;
    // A viewer may not start them (as before): nothing to locate.
    await api.request.post(`/api/v1/dataset/${datasetId}/snapshot/${snapshot.snapshot_id}/restore`).set('Cookie', viewer).expect(403);

    const cloneTask = locatedTask(await api.request.post(`/api/v1/dataset/${datasetId}/snapshot/${snapshot.snapshot_id}/clone`).set('Cookie', owner));
    const clone = (await api.request.get(`/api/v1/tasks/${cloneTask}`).set('Cookie', owner).expect(200)).body;
    expect(clone).toMatchObject({ task_id: cloneTask, task_type: 'SNAPSHOT_CLONE', dataset_name: 'shared (cloned)', created_by: 'owner@example.com' });
    expect(clone.dataset_id).not.toBe(datasetId);
    // The clone is the owner's alone: its task is not the viewer's to see.
    expect((await api.request.get(`/api/v1/tasks/${cloneTask}`).set('Cookie', viewer).expect(404)).body).toEqual({ detail: 'Task not found' });

    const restoreTask = locatedTask(await api.request.post(`/api/v1/dataset/${datasetId}/snapshot/${snapshot.snapshot_id}/restore`).set('Cookie', owner));
    const restore = (await api.request.get(`/api/v1/tasks/${restoreTask}`).set('Cookie', viewer).expect(200)).body;
    expect(restore).toMatchObject({ task_id: restoreTask, task_type: 'SNAPSHOT_RESTORE', dataset_id: datasetId, status: 'INITIALIZING', dataset_status: 'READ_ONLY' });
    // One task as the list shows it.
    const listed = (await api.request.get('/api/v1/tasks').set('Cookie', viewer).query({ dataset_id: datasetId, task_type: 'SNAPSHOT_RESTORE' }).expect(200)).body.tasks;
    expect(listed).toEqual([restore]);

    const { db } = api.deps;
    const ownerId = (await db('users').where({ email: 'owner@example.com' }).first('id')).id;
    const workspaceId = (await Workspace.query(db).first())!.id;
    const partial = await createDataset(db, { name: 'half indexed', ownerId, workspaceId, status: 'PARTIAL INDEX', embeddingConfig: { model: 'test', dim: 4 } });
    const reindexTask = locatedTask(await api.request.post(`/api/v1/dataset/${partial.id}/reindex`).set('Cookie', owner));
    expect((await api.request.get(`/api/v1/tasks/${reindexTask}`).set('Cookie', owner).expect(200)).body).toMatchObject({ task_type: 'REINDEX', dataset_id: partial.id });
  });

  it('GET /tasks/{id}: 404 for an unknown task or one the caller may not see, 422 for a malformed id, 401 without a session; repaired as the list is', async () => {
    const restore = (await api.request.get('/api/v1/tasks').set('Cookie', owner).query({ dataset_id: datasetId, task_type: 'SNAPSHOT_RESTORE' }).expect(200)).body.tasks[0];
    expect((await api.request.get(`/api/v1/tasks/${UNKNOWN}`).set('Cookie', owner).expect(404)).body).toEqual({ detail: 'Task not found' });
    expect((await api.request.get(`/api/v1/tasks/${restore.task_id}`).set('Cookie', outsider).expect(404)).body).toEqual({ detail: 'Task not found' });
    expect((await api.request.get('/api/v1/tasks/not-a-uuid').set('Cookie', owner).expect(422)).body).toEqual({ detail: 'params.task_id: task_id must be a UUID' });
    await api.request.get(`/api/v1/tasks/${restore.task_id}`).expect(401);
    // /tasks/filters is still itself, not a task id.
    expect((await api.request.get('/api/v1/tasks/filters').set('Cookie', owner).expect(200)).body).toHaveProperty('task_types');

    // A lost workflow is read back as FAILED by the one-task read too, and the dataset comes back.
    await api.deps.temporal.workflow.getHandle(restore.task_id).terminate('lost in a test');
    const repaired = (await api.request.get(`/api/v1/tasks/${restore.task_id}`).set('Cookie', viewer).expect(200)).body;
    expect(repaired).toMatchObject({ status: 'FAILED', error_message: 'The workflow was terminated', dataset_status: 'READY' });
  });
});
