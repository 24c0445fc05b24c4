import { headVersionId } from '../support/versions';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createApp } from '../../api/app';
import { createDataset } from '../../db/repositories/datasets';
import { Workspace } from '../../db/models';
import { createReadyDataset, newDatasetWithTransaction, statusesUntil, waitForDatasetStatus, waitForTask } from '../support/datasets';
import { eventually, photo } from '../support/media';
import { makeTarGz, makeZip } from '../support/archives';
import { openStream } from '../support/sse';
import { startTestStack } from '../support/testStack';
import { clusteringOf } from '../../db/repositories/clusteringOf';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const ONE_SOURCE = 'Exactly one media source must be provided: files[], s3_uri, or archive';

describe('add_media batches, reindex and saved-view monitoring', () => {
  let stack: Stack;
  let server: http.Server;
  let port: number;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'add-media-'));
  const darkened = (name: string) => path.join(scratch, `dark_${name}.jpg`);

  beforeAll(async () => {
    stack = await startTestStack();
    server = http.createServer(createApp(stack.deps).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    for (const name of ['motorcycle_left', 'camera', 'hubble_deep_field']) {
      await sharp(photo(name)).modulate({ brightness: 0.12 }).jpeg().toFile(darkened(name));
    }
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await stack.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const addMedia = (datasetId: string) => stack.request.post(`/api/v1/dataset/${datasetId}/add_media`);
  const explored = async (datasetId: string) => {
    const body = (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold: 0 }).expect(200)).body;
    return body.clusters.flatMap((cluster: { previews: Array<{ file_name: string }> }) => cluster.previews.map((p) => p.file_name)).sort();
  };

  it('refuses add_media and reindex with the codes and messages of the spec, changing nothing', async () => {
    const datasetId = await createReadyDataset(stack, 'preconditions', [photo('chelsea'), photo('coffee')]);
    expect((await addMedia(datasetId).field('auto_reindex', 'true').expect(400)).body).toEqual({ detail: ONE_SOURCE });
    expect((await addMedia(datasetId).attach('files', photo('rocket')).field('s3_uri', 's3://bucket/folder').expect(400)).body)
      .toEqual({ detail: ONE_SOURCE });
    const zip = makeZip(path.join(scratch, 'one.zip'), { 'a.jpg': photo('rocket') });
    expect((await addMedia(datasetId).attach('files', photo('rocket')).attach('archive', zip).expect(400)).body).toEqual({ detail: ONE_SOURCE });
    expect((await addMedia(datasetId).field('s3_uri', 'not-a-uri').expect(400)).body)
      .toEqual({ detail: 'Invalid S3 URI or no media files found at not-a-uri' });
    expect((await addMedia(datasetId).attach('files', photo('rocket')).field('auto_reindex', 'maybe').expect(400)).body)
      .toEqual({ detail: 'auto_reindex must be true or false' });
    expect((await addMedia(datasetId).attach('files', photo('rocket')).field('batch_n_images', '-3').expect(400)).body)
      .toEqual({ detail: 'batch_n_images must be a non-negative integer' });
    expect((await addMedia(datasetId).attach('archive', Buffer.from('not an archive'), 'fake.zip').expect(400)).body)
      .toEqual({ detail: 'fake.zip is not a valid .zip, .tar or .tar.gz archive' });
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/reindex`).expect(409)).body)
      .toEqual({ detail: `Dataset ${datasetId} is READY; reindex needs status PARTIAL INDEX` });

    const { datasetId: uploading } = await newDatasetWithTransaction(stack, 'not indexed yet');
    expect((await addMedia(uploading).attach('files', photo('rocket')).expect(409)).body)
      .toEqual({ detail: `Dataset ${uploading} is UPLOADING; add_media needs status READY or PARTIAL INDEX` });
    const workspaceId = (await Workspace.query(stack.deps.db).first())!.id;
    const never = await createDataset(stack.deps.db, { name: 'no embeddings', ownerId: stack.deps.defaultUser.id, workspaceId, status: 'READY' });
    expect((await addMedia(never.id).attach('files', photo('rocket')).expect(400)).body.detail)
      .toMatch(new RegExp(`^Dataset ${never.id} has no embedding_config`));
    await addMedia('6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11').attach('files', photo('rocket')).expect(404);

    const dataset = (await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body;
    expect(dataset).toMatchObject({ status_new: 'READY', n_images: 2 });
    const tasks = (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200)).body.tasks;
    expect(tasks.map((task: { task_type: string }) => task.task_type)).toEqual(['DATASET_CREATION']);
  });

  it('adds a batch of files: READ ONLY, then PARTIAL INDEX, visible in Explore, scored, views evaluated and alerts streamed', async () => {
    const datasetId = await createReadyDataset(stack, 'street', [photo('chelsea'), photo('coffee'), photo('astronaut'), photo('rocket')]);
    const views = `/api/v1/dataset/${datasetId}/views`;
    const darkVql = JSON.stringify([{ issues: { op: 'issue', value: 'dark', mode: 'in' } }]);
    const dark = (await stack.request.post(views).query({ vql: darkVql }).field('name', 'dark shots').expect(200)).body;
    const quiet = (await stack.request.post(views).query({ vql: darkVql }).field('name', 'dark, no alerts').expect(200)).body;
    await stack.request.post(`${views}/${quiet.id}/alerting`).send({ request: { enabled: false } }).expect(200);
    const stream = await openStream(port, `?dataset_id=${datasetId}`);

    const copy = path.join(scratch, 'chelsea_again.jpg');
    await sharp(photo('chelsea')).resize(320).jpeg({ quality: 70 }).toFile(copy);
    const files = [darkened('motorcycle_left'), darkened('camera'), copy, photo('grace_hopper')];
    // Two requests at once: exactly one is accepted.
    const send = () => {
      const request = addMedia(datasetId);
      for (const file of files) request.attach('files', file);
      return request;
    };
    const [first, second] = await Promise.all([send(), send()]);
    expect([first.status, second.status].sort()).toEqual([202, 409]);
    const accepted = first.status === 202 ? first : second;
    const refused = first.status === 202 ? second : first;
    expect(accepted.text).toBe('');
    expect(refused.body).toEqual({ detail: "Operation 'add_media' is blocked while MEDIA_ADDITION task is running" });
    const during = (await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body;
    if (during.status_new === 'READ ONLY') expect(during.status).toBe('UPDATING');

    const task = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    expect(task).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED', progress_percentage: 100, error_message: null });
    // The accepted request names its task, as reindex, restore and clone do.
    expect(accepted.headers.location).toBe(`/api/v1/tasks/${task.task_id}`);
    const dataset = (await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body;
    expect(dataset).toMatchObject({ status_new: 'PARTIAL INDEX', status: 'READY', n_images: 8 });

    // Visible right away, each in a cluster; the copy is a duplicate of the photo already there.
    expect(await explored(datasetId)).toEqual(
      ['astronaut.jpg', 'chelsea.jpg', 'chelsea_again.jpg', 'coffee.jpg', 'dark_camera.jpg', 'dark_motorcycle_left.jpg', 'grace_hopper.jpg', 'rocket.jpg'],
    );
    const db = stack.deps.db;
    const original = await db('media').where({ version_id: await headVersionId(db, datasetId), file_name: 'chelsea.jpg' }).first('id');
    const versionId = await headVersionId(db, datasetId);
    const duplicate = await db('media as m').join('media_issues as i', (join) => join.on('i.version_id', 'm.version_id').andOn('i.media_id', 'm.id'))
      .where({ 'm.version_id': versionId, 'm.file_name': 'chelsea_again.jpg', 'i.issue_type': 'duplicates' }).first('i.details', 'm.uniqueness_score');
    expect(duplicate.details.duplicate_of).toBe(original.id);
    expect(duplicate.details.similarity).toBeGreaterThan(0.9);
    expect(duplicate.uniqueness_score).toBeLessThan(0.2);
    const [{ clusters }] = await db('clusters').where({ clustering_id: clusteringOf(db, versionId), threshold: 0 }).select(db.raw('sum(size)::int as clusters'));
    expect(clusters).toBe(8);
    const grouped = await db('cluster_members as a')
      .join('cluster_members as b', (join) => join.on('a.clustering_id', 'b.clustering_id').andOn('a.cluster_id', 'b.cluster_id'))
      .where({ 'a.clustering_id': clusteringOf(db, versionId), 'a.media_id': original.id, 'a.threshold': 0 }).count({ n: '*' }).first();
    expect(Number(grouped!.n)).toBe(2);

    // Both views counted the two dark photos of this batch; only the alerting one notified.
    const trend = (await stack.request.get(`${views}/${dark.id}/trend`).expect(200)).body;
    expect(trend).toEqual({
      points: [{ timestamp: expect.stringMatching(/Z$/), batch_id: task.task_id, count: 2, cumulative: 2 }],
      total_results: 2,
      last_results: expect.stringMatching(/Z$/),
    });
    expect((await stack.request.get(`${views}/${quiet.id}/trend`).expect(200)).body.total_results).toBe(2);
    const listed = (await stack.request.get(views).expect(200)).body.views.find((v: { id: string }) => v.id === dark.id);
    expect(listed).toMatchObject({ stats: { n_images: 2, n_objects: 0, n_video_frames: 0 }, total_results: 2 });
    const notifications = (await stack.request.get('/api/v1/notifications').query({ dataset_id: datasetId }).expect(200)).body;
    expect(notifications.total).toBe(1);
    expect(notifications.notifications[0]).toMatchObject({
      user_id: stack.deps.defaultUser.id,
      entity_type: 'saved_view',
      entity_id: dark.id,
      title: '',
      dataset_id: datasetId,
      metadata: { view_name: 'dark shots', dataset_name: 'street', result_count: 2, batch_id: task.task_id, is_alert: true },
    });
    const event = await eventually(async () => stream.events.find((e) => e.event === 'notification'), Boolean, 15_000, 'SSE notification');
    expect(event!.data).toMatchObject({ id: notifications.notifications[0].id, entity_id: dark.id });
    stream.close();

    // A view created after this batch sees only later batches.
    const later = (await stack.request.post(views).query({ vql: darkVql }).field('name', 'later').expect(200)).body;
    await addMedia(datasetId).attach('files', darkened('hubble_deep_field')).expect(202);
    await waitForDatasetStatus(stack, datasetId, ['PARTIAL INDEX']);
    await waitForTask(stack, datasetId, ['COMPLETED']);
    expect((await stack.request.get(`${views}/${later.id}/trend`).expect(200)).body.points.map((p: { count: number }) => p.count)).toEqual([1]);
    const darkTrend = (await stack.request.get(`${views}/${dark.id}/trend`).expect(200)).body;
    expect(darkTrend.points.map((p: { count: number; cumulative: number }) => [p.count, p.cumulative])).toEqual([[2, 2], [1, 3]]);

    // Reindex: PARTIAL INDEX → READ ONLY → INDEXING → READY, re-clustering everything.
    await stack.request.post(`/api/v1/dataset/${datasetId}/reindex`).expect(202);
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/reindex`).expect(409)).body)
      .toEqual({ detail: "Operation 'reindex' is blocked while REINDEX task is running" });
    for (const status of await statusesUntil(stack, datasetId, 'READY')) expect(['READ ONLY', 'INDEXING', 'READY']).toContain(status);
    const reindex = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    expect(reindex).toMatchObject({ task_type: 'REINDEX', status: 'COMPLETED' });
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_images: 9 });
    expect((await explored(datasetId)).length).toBe(9);
  });

  it('extracts .zip and .tar.gz archives safely, with nested folders, skipping what is not media', async () => {
    const datasetId = await createReadyDataset(stack, 'archives', [photo('chelsea'), photo('coffee')]);
    const zip = makeZip(path.join(scratch, 'trip.zip'), {
      'trip/day1/rocket.jpg': photo('rocket'),
      'trip/day2/deep/camera.jpg': photo('camera'),
      'trip/notes.txt': Buffer.from('not media'),
      '__MACOSX/trip/._rocket.jpg': Buffer.from('resource fork'),
    });
    await addMedia(datasetId).attach('archive', zip).expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED', error_message: null });
    expect(await explored(datasetId)).toEqual(['chelsea.jpg', 'coffee.jpg', 'trip/day1/rocket.jpg', 'trip/day2/deep/camera.jpg']);

    const tgz = await makeTarGz(path.join(scratch, 'more.tar.gz'), { 'more/astronaut.jpg': photo('astronaut'), 'more/readme.md': Buffer.from('#') });
    await addMedia(datasetId).attach('archive', tgz).field('auto_reindex', 'true').expect(202);
    const seen = await statusesUntil(stack, datasetId, 'READY');
    expect(seen).not.toContain('PARTIAL INDEX');
    const task = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    expect(task).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });
    // auto_reindex: the batch ends READY, re-clustered, without stopping at PARTIAL INDEX.
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_images: 5 });
    expect(await explored(datasetId)).toContain('more/astronaut.jpg');
  });

  it('fails a batch whose archive turns out unsafe halfway, keeping the dataset whole and usable', async () => {
    const datasetId = await createReadyDataset(stack, 'unsafe', [photo('chelsea'), photo('coffee')]);
    const evil = makeZip(path.join(scratch, 'evil.zip'), { 'ok/rocket.jpg': photo('rocket'), '../../escape.jpg': photo('camera') });
    await addMedia(datasetId).attach('archive', evil).expect(202);
    const failed = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    expect(failed).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'FAILED' });
    expect(failed.error_message).toMatch(/invalid relative path|unsafe path/);
    expect(fs.existsSync(path.join(os.tmpdir(), 'escape.jpg'))).toBe(false);
    // The file received before the bad entry is kept for the next reindex; nothing existing is lost.
    const dataset = (await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body;
    expect(dataset).toMatchObject({ status_new: 'PARTIAL INDEX', n_images: 2 });
    expect(await explored(datasetId)).toEqual(['chelsea.jpg', 'coffee.jpg']);
    await stack.request.post(`/api/v1/dataset/${datasetId}/reindex`).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).status).toBe('COMPLETED');
    expect(await explored(datasetId)).toEqual(['chelsea.jpg', 'coffee.jpg', 'ok/rocket.jpg']);
  });

  it('starts a batch from a local folder through the on-premises pipeline endpoint', async () => {
    const datasetId = await createReadyDataset(stack, 'pipeline', [photo('chelsea')]);
    const folder = path.join(scratch, 'drop');
    fs.mkdirSync(path.join(folder, 'sub'), { recursive: true });
    fs.copyFileSync(photo('rocket'), path.join(folder, 'rocket.jpg'));
    fs.copyFileSync(photo('camera'), path.join(folder, 'sub', 'camera.jpg'));
    const trigger = (query: string) => fetch(`${stack.pipelineUrl}/api/v1/process/add_media?${query}`);

    const missing = await trigger(`dataset_id=${datasetId}&path=${encodeURIComponent(path.join(scratch, 'nope'))}`);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { detail: string }).detail).toMatch(/^Invalid path or no media files found at /);
    expect((await trigger(`dataset_id=${datasetId}&path=relative/path`)).status).toBe(400);
    expect((await trigger(`dataset_id=6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11&path=${encodeURIComponent(folder)}`)).status).toBe(404);

    const accepted = await trigger(`dataset_id=${datasetId}&path=${encodeURIComponent(folder)}`);
    expect(accepted.status).toBe(202);
    const body = (await accepted.json()) as { task_id: string };
    expect(body).toEqual({ task_id: expect.any(String), dataset_id: datasetId, path: folder });
    const task = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    expect(task).toMatchObject({ error_message: null, task_id: body.task_id, task_type: 'MEDIA_ADDITION', status: 'COMPLETED', created_by: stack.deps.defaultUser.email });
    expect(await explored(datasetId)).toEqual(['chelsea.jpg', 'rocket.jpg', 'sub/camera.jpg']);
  });
});

describe('add_media when the feature is off', () => {
  it('answers 403 Add media feature is not enabled', async () => {
    const stack = await startTestStack({ ADD_MEDIA_ENABLED: 'false' });
    try {
      const response = await stack.request.post('/api/v1/dataset/6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11/add_media').attach('files', photo('rocket')).expect(403);
      expect(response.body).toEqual({ detail: 'Add media feature is not enabled' });
    } finally {
      await stack.close();
    }
  });
});
