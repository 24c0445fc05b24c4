import { randomUUID } from 'node:crypto';
import { insertTask } from '../../db/repositories/tasks';
import { createReadyDataset, waitForDatasetStatus, waitForTask } from '../support/datasets';
import { eventually, photo } from '../support/media';
import { startTestStack } from '../support/testStack';
import { readZip } from '../support/zip';

type Preview = { media_id: string; file_name: string; labels: string[] | null; user_tags: unknown; caption: string | null };
type Cluster = { cluster_id: string; n_images: number; previews: Preview[]; user_tags: unknown; captions: unknown };
type Snapshot = { snapshot_id: string; snapshot_name: string; reason: string; is_current: boolean; is_restoring: boolean; n_images: number };

describe('snapshots: take, restore and clone a dataset through the real API and worker', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let datasetId: string;

  beforeAll(async () => {
    stack = await startTestStack();
    datasetId = await createReadyDataset(stack, 'pets', ['chelsea', 'coffee', 'astronaut', 'rocket', 'camera'].map(photo));
  }, 180_000);
  afterAll(() => stack.close());

  const api = () => `/api/v1/dataset/${datasetId}/snapshot`;
  const snapshots = async (id = datasetId) => (await stack.request.get(`/api/v1/dataset/${id}/snapshot`).expect(200)).body as Snapshot[];
  /** Everything Explore shows of a dataset at two thresholds, and its tags. */
  const answer = async (id: string) => {
    const page = async (threshold: number) =>
      (await stack.request.get(`/api/v1/explore/${id}`).query({ entity_type: 'IMAGES', threshold }).expect(200)).body.clusters.map((c: Cluster) => ({
        id: c.cluster_id,
        n: c.n_images,
        previews: c.previews.map((p) => [p.media_id, p.file_name, p.labels, p.user_tags, p.caption]),
      }));
    const tags = (await stack.request.get(`/api/v1/dataset/${id}/tags`).expect(200)).body.tags.map((t: { id: string; name: string; n_media: number }) => [t.id, t.name, t.n_media]);
    return { level0: await page(0), level2: await page(2), tags };
  };
  /** The clustering a version reads, and every cluster and membership row of it (id, threshold, size; media, cluster). */
  const clusteringOfVersion = async (versionId: string): Promise<string> =>
    (await stack.deps.db('dataset_versions').where({ id: versionId }).first('clustering_id')).clustering_id;
  const clusteringRows = async (clusteringId: string) => ({
    clusters: await stack.deps.db('clusters').where({ clustering_id: clusteringId }).orderBy(['threshold', 'id']).select('id', 'threshold', 'size'),
    members: await stack.deps.db('cluster_members').where({ clustering_id: clusteringId }).orderBy(['threshold', 'media_id']).select('threshold', 'media_id', 'cluster_id'),
  });
  const allClusteringRows = async () =>
    Number((await stack.deps.db('clusters').count({ n: '*' }).first())!.n) + Number((await stack.deps.db('cluster_members').count({ n: '*' }).first())!.n);
  const headOf = async (id = datasetId): Promise<string> => (await stack.deps.db('datasets').where({ id }).first('head_version_id')).head_version_id;
  const snapshotVersion = async (snapshotId: string): Promise<string> => (await stack.deps.db('snapshots').where({ id: snapshotId }).first('version_id')).version_id;
  const mediaId = async (fileName: string) =>
    (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES' }).expect(200)).body.clusters
      .flatMap((c: Cluster) => c.previews)
      .find((p: Preview) => p.file_name === fileName)!.media_id as string;

  it('takes a snapshot of reason creation when the dataset is first indexed', async () => {
    const [creation] = await snapshots();
    expect(creation).toMatchObject({ reason: 'creation', is_current: true, is_restoring: false, n_images: 5, n_videos: 0, source_dataset_name: 'pets' });
    expect(creation.snapshot_name).toBe(`pets_snapshot_${creation.snapshot_id}`);
    expect(creation).toMatchObject({ description: '', created_by: stack.deps.defaultUser.email, training_model_id: null, training_model_name: null });
  });

  it('creates, renames and deletes snapshots, refusing bad input, a running task and the current one', async () => {
    const taken = (await stack.request.post(api()).send({ name: 'first', description: 'as created' }).expect(200)).body as Snapshot;
    expect(taken).toMatchObject({ snapshot_name: 'first', description: 'as created', reason: 'manual', is_current: true, n_images: 5 });
    const listed = await snapshots();
    expect(listed.map((s) => [s.snapshot_name, s.is_current])).toEqual([['first', true], [expect.stringMatching(/^pets_snapshot_/), false]]);

    const renamed = (await stack.request.patch(`${api()}/${taken.snapshot_id}`).send({ name: 'renamed' }).expect(200)).body;
    expect(renamed).toMatchObject({ snapshot_name: 'renamed', description: 'as created' });
    expect((await stack.request.patch(`${api()}/${taken.snapshot_id}`).send({}).expect(422)).body.detail).toMatch(/give name, description or both/);
    await stack.request.patch(`${api()}/${randomUUID()}`).send({ name: 'x' }).expect(404);
    await stack.request.patch(`${api()}/not-a-uuid`).send({ name: 'x' }).expect(422);
    await stack.request.post(api()).send({ name: '' }).expect(422);
    await stack.request.post(api()).send({ nme: 'typo' }).expect(422);

    expect((await stack.request.delete(`${api()}/${taken.snapshot_id}`).expect(409)).body).toEqual({ detail: 'The current snapshot cannot be deleted' });
    const creation = listed[1].snapshot_id;
    await stack.request.delete(`${api()}/${creation}`).expect(200);
    expect((await snapshots()).map((s) => s.snapshot_id)).toEqual([taken.snapshot_id]);
    await stack.request.delete(`${api()}/${creation}`).expect(404);
    await stack.request.post(`${api()}/${creation}/restore`).expect(404);

    // A data-changing task running: the refusal names it, and nothing is taken.
    const { db } = stack.deps;
    const taskId = randomUUID();
    await insertTask(db, { taskId, datasetId, taskType: 'MEDIA_ADDITION', createdBy: stack.deps.defaultUser.id, input: {}, statusMessage: 'x' });
    await db('tasks').where({ task_id: taskId }).update({ status: 'RUNNING' });
    await db('datasets').where({ id: datasetId }).update({ status_new: 'READ ONLY' });
    try {
      expect((await stack.request.post(api()).send({}).expect(409)).body).toEqual({ detail: 'Snapshot creation is blocked while MEDIA_ADDITION task is running' });
      expect((await stack.request.post(`${api()}/current/restore`).expect(409)).body).toEqual({ detail: 'Snapshot restore is blocked while MEDIA_ADDITION task is running' });
    } finally {
      await db('tasks').where({ task_id: taskId }).update({ status: 'FAILED' });
      await db('datasets').where({ id: datasetId }).update({ status_new: 'READY' });
    }
    expect(await snapshots()).toHaveLength(1);
  });

  it('restores a snapshot after a batch and a tag change: the same Explore answer as when it was taken', async () => {
    const tag = (await stack.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'keep' }).expect(201)).body;
    await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ media_ids: [await mediaId('chelsea.jpg')] }).expect(200);
    const views = `/api/v1/dataset/${datasetId}/views`;
    const dark = (await stack.request.post(views).query({ vql: JSON.stringify([{ issues: { op: 'issue', value: 'dark', mode: 'in' } }]) }).field('name', 'dark').expect(200)).body;
    const viewNames = async (id = datasetId) =>
      (await stack.request.get(`/api/v1/dataset/${id}/views`).expect(200)).body.views.map((v: { id: string; name: string }) => [v.id, v.name]);
    const before = await answer(datasetId);
    const rowsBeforeSnapshot = await allClusteringRows();
    const taken = (await stack.request.post(api()).send({ name: 'before batch' }).expect(200)).body as Snapshot;
    // The snapshot shares the head's clustering: not one cluster or membership row more.
    const shared = await clusteringOfVersion(await snapshotVersion(taken.snapshot_id));
    expect(shared).toBe(await clusteringOfVersion(await headOf()));
    expect(await allClusteringRows()).toBe(rowsBeforeSnapshot);
    const snapshotClustering = await clusteringRows(shared);
    expect(snapshotClustering.members.length).toBeGreaterThan(0);

    await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('files', photo('grace_hopper')).attach('files', photo('motorcycle_left')).expect(202);
    await waitForDatasetStatus(stack, datasetId, ['PARTIAL INDEX']);
    // The batch's placements went to a copy of the clustering (copy-on-write): the snapshot's is as it was.
    const batchClustering = await clusteringOfVersion(await headOf());
    expect(batchClustering).not.toBe(shared);
    expect(await clusteringRows(shared)).toEqual(snapshotClustering);
    expect((await clusteringRows(batchClustering)).members.length).toBe(snapshotClustering.members.length + 2 * 5);
    await stack.request.delete(`/api/v1/dataset/${datasetId}/tags/${tag.id}`).expect(200);
    await stack.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'later' }).expect(201);
    await stack.request.delete(`${views}/${dark.id}`).expect(200);
    await stack.request.post(views).field('name', 'later').expect(200);
    const after = await answer(datasetId);
    expect(after).not.toEqual(before);

    // What changed since the snapshot, by media item: the batch, and the tag taken off chelsea.
    const since = (await stack.request.get(`${api()}/${taken.snapshot_id}/diff/head`).expect(200)).body;
    const none = { count: 0, media_ids: [] };
    const batch = (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES' }).expect(200)).body.clusters
      .flatMap((c: Cluster) => c.previews)
      .filter((p: Preview) => ['grace_hopper.jpg', 'motorcycle_left.jpg'].includes(p.file_name))
      .map((p: Preview) => p.media_id)
      .sort();
    expect(since).toEqual({
      added: { count: 2, media_ids: batch },
      removed: none,
      changed: { captions: none, labels: none, tags: { count: 1, media_ids: [await mediaId('chelsea.jpg')] }, issues: none, custom_metadata: none },
    });
    const limited = (await stack.request.get(`${api()}/current/diff/head`).query({ limit: 1 }).expect(200)).body;
    expect(limited.added).toEqual({ count: 2, media_ids: [batch[0]] });
    await stack.request.get(`${api()}/${taken.snapshot_id}/diff/head`).query({ limit: 0 }).expect(422);
    await stack.request.get(`${api()}/${taken.snapshot_id}/diff/${randomUUID()}`).expect(404);
    await stack.request.get(`${api()}/${taken.snapshot_id}/diff/yesterday`).expect(422);

    // An export reads one version: the snapshot's frozen data, while the dataset itself (PARTIAL INDEX) cannot be exported.
    const exports = `/api/v1/dataset/${datasetId}`;
    await stack.request.get(`${exports}/export_context_async`).query({ file_name: 'now', export_format: 'json' }).expect(409);
    const { id } = (await stack.request.get(`${exports}/export_context_async`).query({ file_name: 'then', export_format: 'json', snapshot_id: taken.snapshot_id }).expect(200)).body;
    const status = await eventually(
      async () => (await stack.request.get(`${exports}/export_status`).query({ export_task_id: id }).expect(200)).body,
      (answer) => ['COMPLETED', 'FAILED'].includes(answer.status),
      120_000,
      'the snapshot export',
    );
    expect(status.status).toBe('COMPLETED');
    const uri = new URL(status.download_uri);
    const zip = await stack.request.get(uri.pathname + uri.search).buffer(true).parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
    const records = JSON.parse((await readZip(zip.body)).get('metadata.json')!.toString('utf8')) as Array<{ file_name: string }>;
    expect(records.map((record) => record.file_name).sort()).toEqual(['astronaut.jpg', 'camera.jpg', 'chelsea.jpg', 'coffee.jpg', 'rocket.jpg']);
    await stack.request.get(`${exports}/export_context_async`).query({ file_name: 'x', export_format: 'json', snapshot_id: randomUUID() }).expect(404);

    await stack.request.post(`${api()}/${taken.snapshot_id}/restore`).expect(202);
    const task = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    expect(task).toMatchObject({ task_type: 'SNAPSHOT_RESTORE', status: 'COMPLETED' });
    const dataset = (await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body;
    expect(dataset).toMatchObject({ status_new: 'READY', n_images: 5 });
    expect(await answer(datasetId)).toEqual(before);
    // The restored head reads the snapshot's clustering again; the batch's copy goes with the replaced head (dropped after the commit).
    expect(await clusteringOfVersion(await headOf())).toBe(shared);
    const released = await eventually(() => clusteringRows(batchClustering), (rows) => rows.clusters.length + rows.members.length === 0, 30_000, 'the replaced head dropped');
    expect(released).toEqual({ clusters: [], members: [] });
    // Saved views as they were: the deleted one back under its id, the later one gone.
    expect(await viewNames()).toEqual([[dark.id, 'dark']]);
    expect((await snapshots()).find((s) => s.snapshot_id === taken.snapshot_id)).toMatchObject({ is_current: true, is_restoring: false });
    const restored = (await stack.request.get(`${api()}/${taken.snapshot_id}/diff/head`).expect(200)).body;
    expect([restored.added.count, restored.removed.count, ...Object.values(restored.changed).map((c) => (c as { count: number }).count)]).toEqual([0, 0, 0, 0, 0, 0, 0]);
    // The batch's files are not pending: a later reindex would not bring them back.
    const { db } = stack.deps;
    expect(await db('uploaded_files').where({ dataset_id: datasetId }).whereIn('file_name', ['grace_hopper.jpg', 'motorcycle_left.jpg']).whereNull('discarded_at')).toEqual([]);
    // Nothing is left of the replaced data: the head and the snapshots' frozen versions only.
    const versions = await db('dataset_versions').where({ dataset_id: datasetId }).count({ n: '*' }).first();
    const kept = await db('snapshots').where({ dataset_id: datasetId }).count({ n: '*' }).first();
    expect(Number(versions!.n)).toBe(Number(kept!.n) + 1);

    // `current` names the latest snapshot taken or restored.
    await stack.request.post(`${api()}/current/restore`).expect(202);
    await eventually(() => waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']), (t) => t.task_type === 'SNAPSHOT_RESTORE' && t.status === 'COMPLETED');
    expect(await answer(datasetId)).toEqual(before);
  }, 180_000);

  it('clones a snapshot into a new independent dataset with a snapshot of its own', async () => {
    const [current] = (await snapshots()).filter((s) => s.is_current);
    const source = await answer(datasetId);
    await stack.request.post(`${api()}/${current.snapshot_id}/clone`).expect(202);
    const task = await eventually(
      async () => (await stack.request.get('/api/v1/tasks').query({ task_type: 'SNAPSHOT_CLONE' }).expect(200)).body.tasks[0],
      (t) => t?.status === 'COMPLETED' || t?.status === 'FAILED',
      120_000,
      'the clone task',
    );
    expect(task).toMatchObject({ status: 'COMPLETED', dataset_name: 'pets (cloned)' });
    const clone = task.dataset_id as string;
    expect((await stack.request.get(`/api/v1/dataset/${clone}`).expect(200)).body).toMatchObject({ display_name: 'pets (cloned)', status_new: 'READY', n_images: 5 });
    expect(await answer(clone)).toEqual(source);
    expect(await clusteringOfVersion(await headOf(clone))).toBe(await clusteringOfVersion(await snapshotVersion(current.snapshot_id)));
    expect((await snapshots(clone)).map((s) => [s.reason, s.is_current, s.n_images])).toEqual([['clone', true, 5]]);
    // The saved views come along as new views of the clone.
    const cloneViews = (await stack.request.get(`/api/v1/dataset/${clone}/views`).expect(200)).body.views;
    expect(cloneViews.map((v: { name: string; filters: unknown }) => [v.name, v.filters])).toEqual([
      ['dark', expect.objectContaining({ vql: [{ issues: { op: 'issue', value: 'dark', mode: 'in' } }] })],
    ]);
    const sourceViews = (await stack.request.get(`/api/v1/dataset/${datasetId}/views`).expect(200)).body.views;
    expect(cloneViews[0].id).not.toBe(sourceViews[0].id);

    // Independent: changing the clone leaves the source as it was; searching it by image works on shared vectors.
    const [tag] = (await stack.request.get(`/api/v1/dataset/${clone}/tags`).expect(200)).body.tags;
    await stack.request.delete(`/api/v1/dataset/${clone}/tags/${tag.id}`).expect(200);
    expect(await answer(datasetId)).toEqual(source);
    const chelsea = await mediaId('chelsea.jpg');
    const similar = (await stack.request.get(`/api/v1/explore/${clone}`).query({ entity_type: 'IMAGES', anchor_type: 'MEDIA', anchor_media_id: chelsea }).expect(200)).body.clusters;
    expect(similar[0].previews[0].media_id).toBe(chelsea);
    await stack.request.post(`${api()}/${randomUUID()}/clone`).expect(404);
  }, 180_000);
});
