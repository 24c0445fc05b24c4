import { headVersionId } from '../support/versions';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { startWorkers } from '../../workers/main';
import type { Knex } from 'knex';
import { makeZip } from '../support/archives';
import { createReadyDataset, newDatasetWithTransaction, uploadFiles } from '../support/datasets';
import { makeVideo, photo, PHOTO_NAMES } from '../support/media';
import { startTestApi, type TestApi } from '../support/testStack';
import { crashAndResume } from '../support/workerCrash';
import { clusteringOf } from '../../db/repositories/clusteringOf';

describe('a worker killed in the middle of a dataset creation or a media batch', () => {
  let api: TestApi;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-'));
  // 24 distinct photos (8 originals in 3 tints) and two videos of 25 frames each (the second one cut at VIDEO_MAX_FRAMES).
  const files: string[] = [];
  const videoA = path.join(scratch, 'a.mp4');
  const videoB = path.join(scratch, 'b.mp4');

  beforeAll(async () => {
    api = await startTestApi({ VIDEO_FRAME_INTERVAL_MS: '200', VIDEO_MAX_FRAMES: '25' });
    for (const name of PHOTO_NAMES) {
      for (const [tint, colour] of [['red', '#ff8080'], ['green', '#80ff80'], ['blue', '#8080ff']] as const) {
        const file = path.join(scratch, `${name}_${tint}.jpg`);
        await sharp(photo(name)).tint(colour).jpeg().toFile(file);
        files.push(file);
      }
    }
    fs.copyFileSync(makeVideo(5), videoA);
    fs.copyFileSync(makeVideo(6), videoB);
  });
  afterAll(async () => {
    await api.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const count = async (query: Knex.QueryBuilder) => Number((await query.count({ n: '*' }))[0].n);

  it('loses and duplicates nothing: the workflow resumes on a new worker and completes', async () => {
    const { datasetId, transId } = await newDatasetWithTransaction(api, 'crash');
    await uploadFiles(api, datasetId, transId, [videoA, ...files.slice(0, 12), videoB, ...files.slice(12)]).expect(202);
    const { db } = api.deps;
    const { task } = await crashAndResume(
      api,
      datasetId,
      () => api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202),
      async () => (await count(db('media').where({ version_id: await headVersionId(db, datasetId) }).whereNull('parent_id'))) >= 3,
      Boolean,
    );
    expect(task.status).toBe('COMPLETED');

    const media = await db('media').where({ version_id: await headVersionId(db, datasetId) });
    const parents = media.filter((m) => m.kind !== 'VIDEO_FRAME').map((m) => m.file_name).sort();
    expect(parents).toEqual(['a.mp4', 'b.mp4', ...files.map((file) => path.basename(file))].sort());
    const frames = media.filter((m) => m.kind === 'VIDEO_FRAME');
    expect(frames).toHaveLength(50);
    expect(new Set(frames.map((f) => `${f.parent_id}:${f.frame_index}`)).size).toBe(50);
    expect(media.every((m) => m.kind === 'VIDEO' || m.embedded)).toBe(true);
    expect(Number((await db('vector_points').where({ collection: `dataset_${datasetId.replace(/-/g, '')}` }).whereNotNull('vector').count({ n: '*' }))[0].n)).toBe(74);
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_images: 24, n_videos: 2 });
  }, 300_000);

  it('resumes an add_media batch from an archive with every file placed exactly once', async () => {
    const { db } = api.deps;
    const { stop: stopWorkers } = await startWorkers(loadConfig(api.env), createLogger('test-worker', 'silent'));
    let datasetId: string;
    try {
      datasetId = await createReadyDataset(api, 'crash batch', [photo('chelsea'), photo('coffee')]);
    } finally {
      await stopWorkers();
    }
    const archive = makeZip(
      path.join(scratch, 'batch.zip'),
      Object.fromEntries([videoA, ...files, videoB].map((file) => [`batch/${path.basename(file)}`, file])),
    );
    const { task } = await crashAndResume(
      api,
      datasetId,
      () => api.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('archive', archive).expect(202),
      async () => (await count(db('media').where({ version_id: await headVersionId(db, datasetId) }).whereNull('parent_id'))) >= 5,
      Boolean,
    );
    expect(task).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });

    const batch = db('media').where({ version_id: await headVersionId(db, datasetId), batch_id: task.task_id });
    expect(await count(batch.clone().whereNull('parent_id'))).toBe(26);
    expect(await count(batch.clone().where({ kind: 'VIDEO_FRAME' }))).toBe(50);
    expect(await count(db('uploaded_files').where({ dataset_id: datasetId }))).toBe(2 + 26);
    // Every image and frame of the dataset sits in exactly one cluster per threshold, and the counts agree.
    for (let threshold = 0; threshold <= 4; threshold++) {
      expect(await count(db('cluster_members').where({ clustering_id: clusteringOf(db, await headVersionId(db, datasetId)), threshold }))).toBe(2 + 24 + 50);
      const [{ total }] = await db('clusters').where({ clustering_id: clusteringOf(db, await headVersionId(db, datasetId)), threshold }).sum({ total: 'size' });
      expect(Number(total)).toBe(2 + 24 + 50);
    }
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'PARTIAL INDEX', n_images: 26, n_videos: 2 });
  }, 300_000);
});
