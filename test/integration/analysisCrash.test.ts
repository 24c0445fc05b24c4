import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { analysisOf, analyzeInOnePass } from '../support/analysisResult';
import { newDatasetWithTransaction, uploadFiles } from '../support/datasets';
import { makeVideo, photo, PHOTO_NAMES } from '../support/media';
import { startTestApi, type TestApi } from '../support/testStack';
import { headVersionId } from '../support/versions';
import { crashAndResume } from '../support/workerCrash';

describe('a worker killed while the analysis searches its chunks', () => {
  let api: TestApi;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'analysis-crash-'));
  // 24 real photos (8 originals in 3 tints) and a video of 25 frames: 49 items, one neighbour-search chunk each.
  const files: string[] = [];

  beforeAll(async () => {
    api = await startTestApi({ VIDEO_FRAME_INTERVAL_MS: '200', VIDEO_MAX_FRAMES: '25', ANALYSIS_CHUNK_SIZE: '1', INDEX_CHUNK_CONCURRENCY: '2' });
    for (const name of PHOTO_NAMES) {
      for (const [tint, colour] of [['red', '#ff8080'], ['green', '#80ff80'], ['blue', '#8080ff']] as const) {
        const file = path.join(scratch, `${name}_${tint}.jpg`);
        await sharp(photo(name)).tint(colour).jpeg().toFile(file);
        files.push(file);
      }
    }
    const video = path.join(scratch, 'clip.mp4');
    fs.copyFileSync(makeVideo(5), video);
    files.push(video);
  }, 120_000);
  afterAll(async () => {
    await api.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('loses only the chunks it held: a new worker searches them again and the clusters equal the single-activity analysis', async () => {
    const { db } = api.deps;
    const { datasetId, transId } = await newDatasetWithTransaction(api, 'analysis crash');
    await uploadFiles(api, datasetId, transId, files).expect(202);
    const versionId = await headVersionId(db, datasetId);
    const storedChunks = async () => Number((await db('knn_edges').where({ version_id: versionId }).count({ n: '*' }))[0].n);

    const { atKill, task } = await crashAndResume(
      api,
      datasetId,
      () => api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202),
      storedChunks,
      (stored) => stored >= 3,
    );
    expect(task).toMatchObject({ task_type: 'DATASET_CREATION', status: 'COMPLETED' });
    const items = Number((await db('media').where({ version_id: versionId }).whereIn('kind', ['IMAGE', 'VIDEO_FRAME']).count({ n: '*' }))[0].n);
    expect(items).toBe(49);
    // Killed with chunks still to search, and every chunk is stored once now.
    expect(atKill).toBeLessThan(items);
    expect(await storedChunks()).toBe(items);

    const resumed = await analysisOf(db, versionId);
    expect(resumed.levels.map((clusters) => clusters.reduce((sum, cluster) => sum + cluster.size, 0))).toEqual([items, items, items, items, items]);
    await analyzeInOnePass(db, api.deps.vectors, datasetId, api.deps.store);
    expect(resumed).toEqual(await analysisOf(db, versionId));
  }, 400_000);
});
