import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { startWorkers } from '../../workers/main';
import { newDatasetWithTransaction, uploadFiles, waitForTask } from '../support/datasets';
import { eventually, makeVideo, photo, PHOTO_NAMES } from '../support/media';
import { startTestApi, type TestApi } from '../support/testStack';

const root = path.join(__dirname, '..', '..');

describe('a worker killed in the middle of a dataset creation', () => {
  let api: TestApi;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-'));

  beforeAll(async () => {
    api = await startTestApi({ VIDEO_FRAME_INTERVAL_MS: '200', VIDEO_MAX_FRAMES: '100' });
  });
  afterAll(async () => {
    await api.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('loses and duplicates nothing: the workflow resumes on a new worker and completes', async () => {
    // 24 distinct photos (8 originals in 3 tints) and two videos of 100 frames each.
    const files: string[] = [];
    for (const name of PHOTO_NAMES) {
      for (const [tint, colour] of [['red', '#ff8080'], ['green', '#80ff80'], ['blue', '#8080ff']] as const) {
        const file = path.join(scratch, `${name}_${tint}.jpg`);
        await sharp(photo(name)).tint(colour).jpeg().toFile(file);
        files.push(file);
      }
    }
    const videoA = path.join(scratch, 'a.mp4');
    const videoB = path.join(scratch, 'b.mp4');
    fs.copyFileSync(makeVideo(20), videoA);
    fs.copyFileSync(makeVideo(21), videoB);
    const { datasetId, transId } = await newDatasetWithTransaction(api, 'crash');
    await uploadFiles(api, datasetId, transId, [videoA, ...files.slice(0, 12), videoB, ...files.slice(12)]).expect(202);

    const worker = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), ['workers/main.ts'], {
      cwd: root,
      env: { ...process.env, ...api.env, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    await api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202);
    const { db } = api.deps;
    await eventually(
      async () => Number((await db('media').where({ dataset_id: datasetId }).whereNull('parent_id').count({ n: '*' }))[0].n),
      (n) => n >= 3,
      120_000,
      'some media ingested',
    );
    worker.kill('SIGKILL');
    await exited;
    const interrupted = await waitForTask(api, datasetId, ['RUNNING']);
    expect(interrupted.progress_percentage).toBeGreaterThan(0);
    expect(interrupted.progress_percentage).toBeLessThan(100);

    const { stop: stopWorkers } = await startWorkers(loadConfig(api.env), createLogger('test-worker', 'silent'));
    try {
      const task = await waitForTask(api, datasetId, ['COMPLETED', 'FAILED'], 180_000);
      expect(task.status).toBe('COMPLETED');
    } finally {
      await stopWorkers();
    }

    const media = await db('media').where({ dataset_id: datasetId });
    const parents = media.filter((m) => m.kind !== 'VIDEO_FRAME').map((m) => m.file_name).sort();
    expect(parents).toEqual(['a.mp4', 'b.mp4', ...files.map((file) => path.basename(file))].sort());
    const frames = media.filter((m) => m.kind === 'VIDEO_FRAME');
    expect(frames).toHaveLength(200);
    expect(new Set(frames.map((f) => `${f.parent_id}:${f.frame_index}`)).size).toBe(200);
    expect(media.every((m) => m.kind === 'VIDEO' || m.embedded)).toBe(true);
    expect(Number((await db('vector_points').where({ collection: `dataset_${datasetId.replace(/-/g, '')}` }).whereNotNull('vector').count({ n: '*' }))[0].n)).toBe(224);
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_images: 24, n_videos: 2 });
  }, 300_000);
});
