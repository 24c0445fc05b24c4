import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { newDatasetWithTransaction, uploadFiles, waitForMap } from '../support/datasets';
import { photo, PHOTO_NAMES } from '../support/media';
import { startTestApi, type TestApi } from '../support/testStack';
import { crashAndResume } from '../support/workerCrash';

describe('a worker killed while the map is laid out', () => {
  let api: TestApi;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'map-crash-'));
  // 72 small photos (8 originals, 9 sizes each): enough for the map's UMAP (64 or more), little to index.
  const files: string[] = [];

  beforeAll(async () => {
    api = await startTestApi();
    for (const name of PHOTO_NAMES) {
      for (const width of [96, 104, 112, 120, 128, 136, 144, 152, 160]) {
        const file = path.join(scratch, `${name}_${width}.jpg`);
        await sharp(photo(name)).resize(width).jpeg({ quality: 80 }).toFile(file);
        files.push(file);
      }
    }
  }, 120_000);
  afterAll(async () => {
    await api.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('leaves the dataset READY with the map being laid out; a new worker lays it out', async () => {
    const { db } = api.deps;
    const { datasetId, transId } = await newDatasetWithTransaction(api, 'map crash');
    await uploadFiles(api, datasetId, transId, files).expect(202);
    const mapTask = async () => (await db('tasks').where({ dataset_id: datasetId, task_type: 'MAP_LAYOUT' }).first('status'))?.status as string | undefined;
    const datasetStatus = async () => (await db('datasets').where({ id: datasetId }).first('status_new')).status_new as string;

    const { atKill, task } = await crashAndResume(
      api,
      datasetId,
      () => api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202),
      async () => ({ map: await mapTask(), dataset: await datasetStatus() }),
      // Killed once the map task is recorded and before it ends (read straight from the database, every 20 ms): the dataset is READY already.
      ({ map }) => map === 'INITIALIZING' || map === 'RUNNING',
      'MAP_LAYOUT',
    );
    // The whole task when it did not complete, so the failure says why.
    expect({ atKill, task: task.status === 'COMPLETED' ? task.task_type : task }).toEqual({ atKill: { map: expect.stringMatching(/^(INITIALIZING|RUNNING)$/), dataset: 'READY' }, task: 'MAP_LAYOUT' });
    const map = await waitForMap(api, datasetId);
    expect(map).toMatchObject({ layout_status: 'ready', layout_task_id: null, count: files.length, unplaced: 0, layout_id: expect.any(String) });
  }, 400_000);
});
