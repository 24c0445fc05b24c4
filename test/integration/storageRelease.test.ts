import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { insertTask } from '../../db/repositories/tasks';
import { deletedDatasetIds, pendingReleaseCounts } from '../../db/repositories/storageRelease';
import { blobKey, modelInputKey } from '../../lib/storage/objectStore';
import { imageCollection } from '../../lib/vectors/vectorStore';
import { purgeDeletedDatasets, releaseBlobs, releaseModelInputs, requestStorageCollection } from '../../services/storageCollection';
import { sha256Hex } from '../../lib/sha256';
import { storageCollectionWorkflowId } from '../../workflows/contracts';
import { createReadyDataset, newDatasetWithTransaction, uploadFiles, waitForDatasetStatus, waitForMap, waitForTask } from '../support/datasets';
import { eventually, photo } from '../support/media';
import { freePort } from '../support/ports';
import { s3TestClientConfig, startS3Server, type S3Server } from '../support/s3Server';
import { startTestStack } from '../support/testStack';
import { unusedVersionsDropped } from '../support/versions';

const shaOf = (name: string) => sha256Hex(fs.readFileSync(photo(name)));

type Dataset = { id: string; name?: string; display_name?: string; status_new?: string };

/** Deleting datasets and snapshots, and the storage collector that releases what nothing uses, through the real API, worker, Temporal and Postgres. */
describe('dataset delete and the storage collector', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let a: string; // chelsea, coffee, astronaut
  let b: string; // chelsea (shared with a by content), rocket
  let clone: string; // a clone of a's snapshot

  const objectsDir = () => path.join(stack.deps.config.dataDir, 'objects');
  const stored = (sha256: string) => fs.existsSync(path.join(objectsDir(), blobKey(sha256)));
  const blobFiles = () => (fs.readdirSync(path.join(objectsDir(), 'blobs'), { recursive: true }) as string[]).filter((name) => /[0-9a-f]{64}$/.test(name)).length;
  const listed = async () => ((await stack.request.get('/api/v1/datasets').expect(200)).body as Dataset[]).map((d) => d.id);
  const explore = (id: string) => stack.request.get(`/api/v1/explore/${id}`).query({ entity_type: 'IMAGES' });
  const collected = async () => {
    // A task drops the versions it left unused (recording what they held) just after its end commits: wait for that too.
    for (const datasetId of await stack.deps.db('datasets').pluck('id')) await unusedVersionsDropped(stack.deps.db, datasetId);
    await requestStorageCollection({ temporal: stack.deps.temporal, taskQueue: stack.deps.config.temporal.taskQueue });
    const none = { blob: 0, vector_space: 0, vector_point: 0, export_archive: 0 };
    await eventually(
      // The deleted datasets first: a purge records what it may release in the transaction that deletes its dataset,
      // so read after it, nothing pending means released (read before, a purge committing between the reads passed).
      async () => {
        const deleted = await stack.deps.db('datasets').whereNotNull('deleted_at').count({ n: '*' });
        return { deleted, pending: await pendingReleaseCounts(stack.deps.db) };
      },
      (state) => JSON.stringify(state.pending) === JSON.stringify(none) && Number(state.deleted[0].n) === 0,
      60_000,
      'the collector to finish',
    );
  };

  beforeAll(async () => {
    stack = await startTestStack({ SNAPSHOT_RETENTION_DAYS: '0', EXPORT_RETENTION_DAYS: '0' });
    a = await createReadyDataset(stack, 'a', ['chelsea', 'coffee', 'astronaut'].map(photo));
    b = await createReadyDataset(stack, 'b', ['chelsea', 'rocket'].map(photo));
    const [creation] = (await stack.request.get(`/api/v1/dataset/${a}/snapshot`).expect(200)).body;
    await stack.request.post(`/api/v1/dataset/${a}/snapshot/${creation.snapshot_id}/clone`).expect(202);
    clone = await eventually(
      async () => ((await stack.request.get('/api/v1/datasets').expect(200)).body as Dataset[]).find((d) => d.id !== a && d.id !== b)?.id,
      (id) => Boolean(id),
      60_000,
      'the clone',
    ) as string;
    await waitForDatasetStatus(stack, clone, ['READY']);
  }, 300_000);
  afterAll(async () => {
    await stack.deps.temporal.workflow.getHandle(storageCollectionWorkflowId(stack.deps.config.temporal.taskQueue)).terminate().catch(() => undefined);
    await stack.close();
  });

  it('refuses bad input, an unknown dataset, viewers and editors, and a dataset a task uses, changing nothing', async () => {
    expect((await stack.request.delete('/api/v1/dataset/not-a-uuid').expect(422)).body.detail).toMatch(/dataset_id/);
    expect((await stack.request.delete(`/api/v1/dataset/${randomUUID()}`).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    const { db } = stack.deps;
    const member = db('dataset_members').where({ dataset_id: b, user_id: stack.deps.defaultUser.id });
    try {
      for (const role of ['viewer', 'editor']) {
        await member.clone().update({ role });
        expect((await stack.request.delete(`/api/v1/dataset/${b}`).expect(403)).body).toEqual({
          detail: `This operation needs owner access to the dataset; you have ${role}`,
        });
      }
    } finally {
      await member.clone().update({ role: 'owner' });
    }
    const taskId = randomUUID();
    await insertTask(db, { taskId, datasetId: b, taskType: 'EXPORT', createdBy: stack.deps.defaultUser.id, input: {}, statusMessage: 'x' });
    try {
      expect((await stack.request.delete(`/api/v1/dataset/${b}`).expect(409)).body.detail).toMatch(/while a EXPORT task using it runs/);
      await db('datasets').where({ id: b }).update({ status_new: 'INDEXING' });
      expect((await stack.request.delete(`/api/v1/dataset/${b}`).expect(409)).body.detail).toMatch(/is INDEXING: a running task holds it/);
    } finally {
      await db('tasks').where({ task_id: taskId }).update({ status: 'FAILED' });
      await db('datasets').where({ id: b }).update({ status_new: 'READY' });
    }
    expect(await listed()).toEqual(expect.arrayContaining([a, b, clone]));
  });

  it('deletes a dataset whose map is still being laid out; its purge waits for the map task', async () => {
    const { db } = stack.deps;
    const mapped = await createReadyDataset(stack, 'map still laid out', [photo('coffee')]);
    const taskId = randomUUID();
    await insertTask(db, { taskId, datasetId: mapped, taskType: 'MAP_LAYOUT', createdBy: stack.deps.defaultUser.id, input: {}, statusMessage: 'x' });
    try {
      await stack.request.delete(`/api/v1/dataset/${mapped}`).expect(200);
      expect(await listed()).not.toContain(mapped);
      expect(await deletedDatasetIds(db, 100)).not.toContain(mapped);
    } finally {
      await db('tasks').where({ task_id: taskId }).update({ status: 'COMPLETED' });
    }
    expect(await deletedDatasetIds(db, 100)).toContain(mapped);
    await collected();
    expect(await db('datasets').where({ id: mapped }).first('id')).toBeUndefined();
  });

  it('deletes a dataset: gone from every answer at once; its clone keeps the blobs and vectors they share', async () => {
    const filesBefore = blobFiles();
    // A tag of every media item: a's versions then hold per-cluster facet counts, which must go with them.
    const tag = (await stack.request.post(`/api/v1/dataset/${a}/tags`).send({ name: 'kept' }).expect(201)).body;
    await stack.request.post(`/api/v1/dataset/${a}/tags/${tag.id}/media`).send({ vql: '[]' }).expect(200);
    const versionsOfA = stack.deps.db('dataset_versions').where({ dataset_id: a }).select('id');
    expect(Number((await stack.deps.db('cluster_facet_counts').whereIn('version_id', versionsOfA).count({ n: '*' }))[0].n)).toBeGreaterThan(0);
    await stack.request.delete(`/api/v1/dataset/${a}`).expect(200);
    expect(await listed()).not.toContain(a);
    await stack.request.get(`/api/v1/dataset/${a}`).expect(404);
    await explore(a).expect(404);
    await stack.request.delete(`/api/v1/dataset/${a}`).expect(404);
    const tasks = (await stack.request.get('/api/v1/tasks').query({ page_size: 50 }).expect(200)).body.tasks as Array<{ dataset_id: string }>;
    expect(tasks.map((t) => t.dataset_id)).not.toContain(a);
    await collected();
    expect(await stack.deps.db('dataset_versions').where({ dataset_id: a }).count({ n: '*' })).toEqual([{ n: '0' }]);
    expect(await stack.deps.db('cluster_facet_counts').whereNotIn('version_id', stack.deps.db('dataset_versions').select('id')).count({ n: '*' })).toEqual([{ n: '0' }]);

    // The clone reads a's blobs and a's vector space: all kept, and it still searches by similarity.
    expect(blobFiles()).toBe(filesBefore);
    expect(await stack.deps.vectors.count(imageCollection(a))).toBe(3);
    const clusters = (await explore(clone).expect(200)).body.clusters as Array<{ previews: Array<{ media_id: string; file_name: string }> }>;
    const coffee = clusters.flatMap((c) => c.previews).find((p) => p.file_name === 'coffee.jpg')!;
    const similar = await explore(clone).query({ anchor_media_id: coffee.media_id, anchor_type: 'MEDIA' }).expect(200);
    expect(similar.body.clusters.length).toBeGreaterThan(0);
  }, 180_000);

  it('deleting the clone too releases what only they used, and keeps the blob another dataset shares by content', async () => {
    const filesBefore = blobFiles();
    for (const name of ['chelsea', 'coffee', 'astronaut', 'rocket']) expect(stored(shaOf(name))).toBe(true);
    await stack.request.delete(`/api/v1/dataset/${clone}`).expect(200);
    await collected();
    expect(stored(shaOf('coffee'))).toBe(false);
    expect(stored(shaOf('astronaut'))).toBe(false);
    expect(stored(shaOf('chelsea'))).toBe(true);
    expect(stored(shaOf('rocket'))).toBe(true);
    // Two originals and their two thumbnails went.
    expect(blobFiles()).toBe(filesBefore - 4);
    expect(await stack.deps.vectors.listCollections()).not.toContain(imageCollection(a));
    // b still answers, and serves the shared image.
    const previews = ((await explore(b).expect(200)).body.clusters as Array<{ previews: Array<{ file_name: string; media_uri: string }> }>).flatMap((c) => c.previews);
    const chelsea = previews.find((p) => p.file_name === 'chelsea.jpg')!;
    const image = await stack.request.get(new URL(chelsea.media_uri).pathname + new URL(chelsea.media_uri).search).expect(200);
    expect(sha256Hex(image.body as Buffer)).toBe(shaOf('chelsea'));
  }, 180_000);

  it('survives a crash after the purge: what it recorded is released by a later run (blobs once no batch is being added), and a run with nothing to do changes nothing', async () => {
    const taskQueue = stack.deps.config.temporal.taskQueue;
    await stack.deps.temporal.workflow.getHandle(storageCollectionWorkflowId(taskQueue)).terminate();
    const doomed = await createReadyDataset(stack, 'doomed', ['motorcycle_left', 'chelsea'].map(photo));
    await stack.deps.db('datasets').where({ id: doomed }).update({ deleted_at: stack.deps.db.fn.now() });
    // The collector's first step ran, then its worker died: rows are gone, the blobs wait as candidates.
    const deps = { db: stack.deps.db, store: stack.deps.store, vectors: stack.deps.vectors, heartbeat: () => undefined, settings: stack.deps.config.storageRelease };
    expect(await purgeDeletedDatasets(deps)).toBe(1);
    expect(await purgeDeletedDatasets(deps)).toBe(0);
    expect(stored(shaOf('motorcycle_left'))).toBe(true);
    expect((await pendingReleaseCounts(stack.deps.db)).blob).toBeGreaterThanOrEqual(2);

    // While a batch is being added somewhere, blobs wait (it may have stored the same bytes without their row yet); the rest goes on.
    const taskId = randomUUID();
    await insertTask(stack.deps.db, { taskId, datasetId: b, taskType: 'MEDIA_ADDITION', createdBy: stack.deps.defaultUser.id, input: {}, statusMessage: 'x' });
    try {
      await requestStorageCollection({ temporal: stack.deps.temporal, taskQueue });
      await eventually(() => pendingReleaseCounts(stack.deps.db), (pending) => pending.vector_space === 0, 60_000, 'the vector spaces to go');
      expect((await pendingReleaseCounts(stack.deps.db)).blob).toBeGreaterThanOrEqual(2);
      expect(stored(shaOf('motorcycle_left'))).toBe(true);
    } finally {
      await stack.deps.db('tasks').where({ task_id: taskId }).update({ status: 'FAILED' });
    }
    await collected();
    expect(stored(shaOf('motorcycle_left'))).toBe(false);
    expect(stored(shaOf('chelsea'))).toBe(true);
    const filesBefore = blobFiles();
    await collected();
    expect(blobFiles()).toBe(filesBefore);
    await explore(b).expect(200);
  }, 180_000);

  it('releases a deleted snapshot\'s version and an expired export archive (retention 0 here)', async () => {
    const { db } = stack.deps;
    // With a retention of 0 any run expires the archive as soon as it exists: no run (a signal left
    // by the tests above would start one) until the archive has been seen. `collected` starts it again.
    await stack.deps.temporal.workflow.getHandle(storageCollectionWorkflowId(stack.deps.config.temporal.taskQueue)).terminate('the export must be seen first').catch(() => undefined);
    await stack.request.post(`/api/v1/dataset/${b}/snapshot`).send({ name: 'manual' }).expect(200);
    const snapshots = (await stack.request.get(`/api/v1/dataset/${b}/snapshot`).expect(200)).body as Array<{ snapshot_id: string; is_current: boolean }>;
    const old = snapshots.find((s) => !s.is_current)!;
    const versionsBefore = Number((await db('dataset_versions').where({ dataset_id: b }).count({ n: '*' }))[0].n);
    await stack.request.delete(`/api/v1/dataset/${b}/snapshot/${old.snapshot_id}`).expect(200);

    const { id: exportId } = (await stack.request.get(`/api/v1/dataset/${b}/export_context_async`).query({ file_name: 'b.zip', export_format: 'json' }).expect(200)).body;
    await eventually(
      async () => (await stack.request.get(`/api/v1/dataset/${b}/export_status`).query({ export_task_id: exportId }).expect(200)).body.status,
      (status) => status === 'COMPLETED',
      60_000,
      'the export',
    );
    const archive = path.join(objectsDir(), 'exports', exportId, 'b.zip');
    expect(fs.existsSync(archive)).toBe(true);
    await collected();
    await eventually(async () => fs.existsSync(archive), (exists) => !exists, 30_000, 'the archive to go');
    expect((await stack.request.get(`/api/v1/dataset/${b}/export_status`).query({ export_task_id: exportId }).expect(404)).body).toEqual({
      detail: 'The archive of this export expired and was removed; export again',
    });
    expect(Number((await db('dataset_versions').where({ dataset_id: b }).count({ n: '*' }))[0].n)).toBe(versionsBefore - 1);
    expect(await db('snapshots').where({ id: old.snapshot_id }).count({ n: '*' })).toEqual([{ n: '0' }]);
    // The dataset and its current snapshot are untouched.
    expect((await explore(b).expect(200)).body.clusters.length).toBeGreaterThan(0);
    expect((await stack.request.get(`/api/v1/dataset/${b}/snapshot`).expect(200)).body).toHaveLength(1);
    expect(stored(shaOf('rocket'))).toBe(true);
  }, 180_000);

  it('releases the vectors of media that left every version of a lineage (added, then a restore went back without them), and keeps the rest searchable', async () => {
    const { db, vectors } = stack.deps;
    const lineage = await createReadyDataset(stack, 'lineage', ['coffee', 'astronaut'].map(photo));
    const [creation] = (await stack.request.get(`/api/v1/dataset/${lineage}/snapshot`).expect(200)).body;
    await stack.request.post(`/api/v1/dataset/${lineage}/add_media`).attach('files', photo('grace_hopper')).attach('files', photo('hubble_deep_field')).expect(202);
    await waitForDatasetStatus(stack, lineage, ['PARTIAL INDEX']);
    const collection = imageCollection(lineage);
    expect(await vectors.count(collection)).toBe(4);
    const added: string[] = await db('media').where({ version_id: db('datasets').where({ id: lineage }).select('head_version_id') }).whereIn('file_name', ['grace_hopper.jpg', 'hubble_deep_field.jpg']).pluck('id');
    expect(added).toHaveLength(2);

    await stack.request.post(`/api/v1/dataset/${lineage}/snapshot/${creation.snapshot_id}/restore`).expect(202);
    await waitForDatasetStatus(stack, lineage, ['READY']);
    await collected();
    expect(await vectors.count(collection)).toBe(2);
    expect([...(await vectors.get(collection, added)).keys()]).toEqual([]);
    // The media the lineage still holds keep their vectors: a visual search by one finds it.
    const coffee = await db('media').where({ version_id: db('datasets').where({ id: lineage }).select('head_version_id'), file_name: 'coffee.jpg' }).first('id');
    const [hits] = await vectors.searchMany(collection, [(await vectors.get(collection, [coffee.id])).get(coffee.id)!], 1);
    expect(hits[0].id).toBe(coffee.id);
    expect((await explore(lineage).expect(200)).body.clusters.length).toBeGreaterThan(0);
  }, 180_000);

  it('keeps a blob an upload of the same bytes is storing while the collector releases it, and releases it once nothing names it', async () => {
    const { db } = stack.deps;
    const taskQueue = stack.deps.config.temporal.taskQueue;
    // Only the runs this test makes: the collector's workflow waits until the end.
    await stack.deps.temporal.workflow.getHandle(storageCollectionWorkflowId(taskQueue)).terminate().catch(() => undefined);
    const deps = { db, store: stack.deps.store, vectors: stack.deps.vectors, heartbeat: () => undefined, settings: stack.deps.config.storageRelease };
    const camera = shaOf('camera');
    const doomed = await createReadyDataset(stack, 'doomed camera', [photo('camera')]);
    await db('datasets').where({ id: doomed }).update({ deleted_at: db.fn.now() });
    await purgeDeletedDatasets(deps);
    expect(stored(camera)).toBe(true);

    // An upload of the same bytes, held between its put (which finds the blob stored and keeps it) and the
    // insert of its row: the insert waits for this lock on its upload transaction.
    const { datasetId: receiver, transId } = await newDatasetWithTransaction(stack, 'receiver');
    const held = await db.transaction();
    try {
      await held('upload_transactions').where({ id: transId }).forUpdate().first('id');
      const upload = uploadFiles(stack, receiver, transId, [photo('camera')]).then((response) => response);
      await eventually(
        async () => (await db.raw(`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE NOT l.granted AND a.query ILIKE '%upload_transactions%'`)).rows[0].n,
        (waiting: number) => waiting > 0,
        30_000,
        'the upload to wait for its row',
      );
      await releaseBlobs(deps);
      expect(stored(camera)).toBe(true);
      expect(await db('blob_writes').where({ sha256: camera }).count({ n: '*' })).toEqual([{ n: '1' }]);
      expect(await db('storage_release_candidates').where({ kind: 'blob', key: camera }).count({ n: '*' })).toEqual([{ n: '1' }]);
      await held.commit();
      expect((await upload).status).toBe(202);
    } finally {
      if (!held.isCompleted()) await held.rollback();
    }
    expect(await db('blob_writes').where({ sha256: camera }).count({ n: '*' })).toEqual([{ n: '0' }]);

    // The row's media can be read: indexed, and its original served.
    await stack.request.post(`/api/v1/ingestion/${receiver}/process_files/${transId}`).expect(202);
    expect((await waitForTask(stack, receiver, ['COMPLETED', 'FAILED'])).status).toBe('COMPLETED');
    const [preview] = ((await explore(receiver).expect(200)).body.clusters as Array<{ previews: Array<{ media_uri: string }> }>).flatMap((c) => c.previews);
    const image = await stack.request.get(new URL(preview.media_uri).pathname + new URL(preview.media_uri).search).expect(200);
    expect(sha256Hex(image.body as Buffer)).toBe(camera);
    // Named by a row now: the next run forgets the candidate and keeps the blob.
    await releaseBlobs(deps);
    expect(stored(camera)).toBe(true);
    expect(await db('storage_release_candidates').where({ kind: 'blob', key: camera }).count({ n: '*' })).toEqual([{ n: '0' }]);

    // Its map task (after READY) would hold the purge until the next collection.
    await waitForMap(stack, receiver);
    await stack.request.delete(`/api/v1/dataset/${receiver}`).expect(200);
    await collected();
    expect(stored(camera)).toBe(false);
  }, 180_000);

  it('removes prepared model inputs nothing will read (an interrupted ingest\'s, an embedded item\'s), keeps the one a media item waiting for its embedding needs, and waits while a blob-storing task runs', async () => {
    const { db, store } = stack.deps;
    const deps = { db, store, vectors: stack.deps.vectors, heartbeat: () => undefined, settings: stack.deps.config.storageRelease };
    const spec = { size: 224, resize: 'fill' };
    const inputsDir = path.join(objectsDir(), 'model-inputs');
    const onDisk = () => (fs.existsSync(inputsDir) ? (fs.readdirSync(inputsDir, { recursive: true }) as string[]).map((name) => path.join(inputsDir, name)).filter((file) => fs.statSync(file).isFile()) : []);
    const bytes = () => onDisk().reduce((sum, file) => sum + fs.statSync(file).size, 0);
    const present = (sha256: string) => fs.existsSync(path.join(objectsDir(), modelInputKey(sha256, spec)));
    // The ingest made them and the embedding removed them: none left by the datasets made so far.
    expect(onDisk()).toEqual([]);
    const head = db('datasets').where({ id: b }).select('head_version_id');
    const waiting = await db('media').where({ version_id: head, file_name: 'chelsea.jpg' }).first('id', 'blob_sha256');
    const orphan = sha256Hex(Buffer.from(`an upload whose ingest was interrupted ${randomUUID()}`));
    const input = Buffer.alloc(spec.size * spec.size * 3, 7);
    await db('media').where({ id: waiting.id }).update({ embedded: false });
    try {
      for (const sha256 of [orphan, shaOf('rocket'), waiting.blob_sha256]) await store.put(modelInputKey(sha256, spec), input);
      const before = bytes();
      expect(before).toBe(3 * input.length);

      const taskId = randomUUID();
      await insertTask(db, { taskId, datasetId: b, taskType: 'REINDEX', createdBy: stack.deps.defaultUser.id, input: {}, statusMessage: 'x' });
      try {
        expect(await releaseModelInputs(deps)).toBe(0);
        expect(bytes()).toBe(before);
      } finally {
        await db('tasks').where({ task_id: taskId }).update({ status: 'FAILED' });
      }

      expect(await releaseModelInputs(deps)).toBe(2);
      expect([present(orphan), present(shaOf('rocket')), present(waiting.blob_sha256)]).toEqual([false, false, true]);
      expect(bytes()).toBe(before - 2 * input.length);
    } finally {
      await db('media').where({ id: waiting.id }).update({ embedded: true });
      await store.delete(modelInputKey(waiting.blob_sha256, spec));
    }
    await explore(b).expect(200);
  }, 60_000);
});

/** The same release against a real S3-compatible server (OBJECT_STORE_URL): objects counted in the bucket. */
describe('dataset delete with the object store in a bucket', () => {
  let s3: S3Server;
  let client: S3Client;
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'storage-release-s3-'));

  beforeAll(async () => {
    s3 = await startS3Server({ port: await freePort(), dataDir: path.join(scratch, 's3') });
    client = new S3Client(s3TestClientConfig(s3.endpoint));
    await client.send(new CreateBucketCommand({ Bucket: 'objects' }));
    stack = await startTestStack({ OBJECT_STORE_URL: 's3://objects/service', S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY_ID: 'test', S3_SECRET_ACCESS_KEY: 'test' });
  }, 120_000);
  afterAll(async () => {
    await stack?.deps.temporal.workflow.getHandle(storageCollectionWorkflowId(stack.deps.config.temporal.taskQueue)).terminate().catch(() => undefined);
    await stack?.close();
    client?.destroy();
    await s3?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('removes the deleted dataset\'s blobs, thumbnails and published vector index from the bucket, and keeps what another dataset shares', async () => {
    const keys = async (prefix: string) => ((await client.send(new ListObjectsV2Command({ Bucket: 'objects', Prefix: `service/${prefix}` }))).Contents ?? []).map((o) => o.Key!);
    const kept = await createReadyDataset(stack, 'kept', [photo('chelsea')]);
    const doomed = await createReadyDataset(stack, 'doomed', ['chelsea', 'hubble_deep_field', 'grace_hopper'].map(photo));
    const indexOfDoomed = `service/vector-indexes/${imageCollection(doomed)}`;
    await eventually(() => keys('vector-indexes/'), (found) => found.some((key) => key.startsWith(indexOfDoomed)), 30_000, 'a published index');
    const blobsBefore = await keys('blobs/');
    // An input prepared for one of its images that no embedding removed (an interrupted ingest's).
    await stack.deps.store.put(modelInputKey(shaOf('grace_hopper'), { size: 224, resize: 'fill' }), Buffer.alloc(1024));
    expect(await keys('model-inputs/')).toHaveLength(1);

    await stack.request.delete(`/api/v1/dataset/${doomed}`).expect(200);
    await requestStorageCollection({ temporal: stack.deps.temporal, taskQueue: stack.deps.config.temporal.taskQueue });
    const blobsAfter = await eventually(() => keys('blobs/'), (found) => found.length === blobsBefore.length - 4, 60_000, 'two images and their thumbnails to go');
    const gone = blobsBefore.filter((key) => !blobsAfter.includes(key));
    expect(gone.sort()).toEqual(expect.arrayContaining([`service/${blobKey(shaOf('hubble_deep_field'))}`, `service/${blobKey(shaOf('grace_hopper'))}`]));
    expect(blobsAfter).toContain(`service/${blobKey(shaOf('chelsea'))}`);
    await eventually(() => keys('vector-indexes/'), (found) => !found.some((key) => key.startsWith(indexOfDoomed)), 30_000, 'the index to go');
    await eventually(() => keys('model-inputs/'), (found) => found.length === 0, 30_000, 'the model input to go');
    expect((await stack.request.get(`/api/v1/explore/${kept}`).query({ entity_type: 'IMAGES' }).expect(200)).body.clusters).toHaveLength(1);
  }, 240_000);
});
