import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPipelineTrigger } from '../../api/server';
import { loadConfig } from '../../lib/config';
import { blobKey } from '../../lib/storage/objectStore';
import { uploadStagingDir } from '../../lib/storage/staging';
import { makeZip } from '../support/archives';
import { createReadyDataset, waitForTask } from '../support/datasets';
import { photo } from '../support/media';
import { startTestStack } from '../support/testStack';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const PIPELINE_TOKEN = 'pipeline-token-for-the-tests-0123';

describe('worker-side hardening: zip bombs, the pipeline trigger, the host of signed links', () => {
  let stack: Stack;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-hardening-'));

  beforeAll(async () => {
    stack = await startTestStack({ ARCHIVE_MAX_RATIO: '100', ARCHIVE_RATIO_FLOOR_MB: '1', PIPELINE_TOKEN });
    datasetId = await createReadyDataset(stack, 'hardening', [photo('chelsea'), photo('coffee')]);
  });
  afterAll(async () => {
    await stack.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses an archive entry that expands past the ratio before writing a byte of it, and keeps the dataset as it was', async () => {
    const zeros = Buffer.alloc(32 * 1024 * 1024);
    const bomb = makeZip(path.join(scratch, 'bomb.zip'), { 'bomb.jpg': zeros }, { deflate: true });
    expect(fs.statSync(bomb).size).toBeLessThan(64 * 1024);
    const before = (await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body;

    await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('archive', bomb).expect(202);
    const task = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    expect(task).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'FAILED' });
    expect(task.error_message).toMatch(/archive entry bomb\.jpg expands more than 100 times its compressed size/);

    const zerosKey = blobKey(createHash('sha256').update(zeros).digest('hex'));
    expect(await stack.deps.store.exists(zerosKey)).toBe(false);
    const staging = uploadStagingDir(stack.deps.config);
    expect(fs.existsSync(staging) ? fs.readdirSync(staging) : []).toEqual([]);
    expect(await stack.deps.db('uploaded_files').where({ dataset_id: datasetId, file_name: 'bomb.jpg' })).toEqual([]);
    const after = (await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body;
    expect({ n_images: after.n_images, n_videos: after.n_videos }).toEqual({ n_images: before.n_images, n_videos: before.n_videos });
  });

  it('serves the pipeline trigger only with the PIPELINE_TOKEN bearer when one is set', async () => {
    const trigger = (headers: Record<string, string>) =>
      fetch(`${stack.pipelineUrl}/api/v1/process/add_media?dataset_id=${datasetId}&path=${encodeURIComponent(scratch)}`, { headers });
    const refusedHeaders: Array<Record<string, string>> = [{}, { Authorization: 'Bearer wrong-token-of-some-length' }, { Authorization: PIPELINE_TOKEN }];
    for (const headers of refusedHeaders) {
      const refused = await trigger(headers);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ detail: 'The pipeline trigger needs Authorization: Bearer <PIPELINE_TOKEN>' });
    }
    // With the token the request gets through to the trigger's own checks (an empty folder holds no media).
    const admitted = await trigger({ Authorization: `Bearer ${PIPELINE_TOKEN}` });
    expect(admitted.status).toBe(400);
    expect(((await admitted.json()) as { detail: string }).detail).toMatch(/^Invalid path or no media files found at /);
  });

  it('does not serve the pipeline trigger at all in CLOUD mode, token or not', async () => {
    const cloud = loadConfig({ ...stack.env, RUN_MODE: 'CLOUD', SECRET_KEY: 'k'.repeat(40), PIPELINE_TOKEN: PIPELINE_TOKEN });
    expect(await startPipelineTrigger({ ...stack.deps, config: cloud })).toBeUndefined();
  });
});
