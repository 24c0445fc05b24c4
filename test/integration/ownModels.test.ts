import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../lib/config';
import { loadClip } from '../../lib/ml/clip';
import { createReadyDataset, waitForDatasetStatus, waitForTask } from '../support/datasets';
import { photo } from '../support/media';
import { startTestStack } from '../support/testStack';
import { writeTinyClip } from '../support/tinyClip';

type Preview = { file_name: string; caption: string | null };
type Cluster = { previews: Preview[]; relevance_score: number };

/**
 * A site's own models through the same code as the shipped ones: a CLIP model dropped into
 * MODELS_DIR (a tiny one written here: no CLIP weights are reachable) and an OpenAI-compatible vision
 * endpoint for captions (a local server standing in for vLLM or Ollama).
 */
describe('bring your own models: CLIP in MODELS_DIR and a vision caption endpoint', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let endpoint: http.Server;
  let modelsDir: string;
  let datasetId: string;
  const requests: Array<{ model: string; authorization?: string; bytes: number }> = [];
  let refuse = false;
  const files: string[] = [];
  /** Transactions open on the dataset's database while the endpoint was thinking: the model runs outside any. */
  const openTransactions: number[] = [];

  beforeAll(async () => {
    endpoint = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', async () => {
        const [{ open }] = (
          await stack.deps.db.raw("select count(*)::int as open from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'")
        ).rows;
        openTransactions.push(open);
        if (refuse) {
          response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad key"}');
          return;
        }
        const parsed = JSON.parse(body);
        const image = parsed.messages[0].content.find((part: { type: string }) => part.type === 'image_url').image_url.url as string;
        const bytes = Buffer.from(image.slice(image.indexOf(',') + 1), 'base64').length;
        requests.push({ model: parsed.model, authorization: request.headers.authorization, bytes });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: `"An image of ${bytes} bytes."` } }] }));
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    // The installed models, plus the site's CLIP.
    modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'own-models-'));
    const installed = loadConfig({}).models.dir;
    for (const file of fs.readdirSync(installed)) fs.symlinkSync(path.join(installed, file), path.join(modelsDir, file));
    writeTinyClip(modelsDir);

    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'own-models-photos-'));
    for (const [name, colour] of Object.entries({ red: '#e02020', green: '#20c040', blue: '#2040e0', white: '#f0f0f0' })) {
      const file = path.join(scratch, `${name}.png`);
      await sharp({ create: { width: 96, height: 64, channels: 3, background: colour } }).png().toFile(file);
      files.push(file);
    }
    files.push(photo('chelsea'), photo('coffee'));
    stack = await startTestStack({
      MODELS_DIR: modelsDir,
      VISION_CAPTION_URL: `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`,
      VISION_CAPTION_MODEL: 'test-vlm',
      VISION_CAPTION_API_KEY: 'sk-test',
    });
    datasetId = await createReadyDataset(stack, 'own models', files);
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
    endpoint.close();
  });

  const enrich = async (models: Record<string, string>) => {
    const { dataset_id } = (await stack.request.post(`/api/v1/dataset/${datasetId}/enrich_dataset`).send({ enrichment_models: models }).expect(200)).body;
    return { id: dataset_id as string, task: await waitForTask(stack, dataset_id, ['COMPLETED', 'FAILED']) };
  };
  const explore = async (id: string, query: Record<string, string>) =>
    (await stack.request.get(`/api/v1/explore/${id}`).query({ entity_type: 'IMAGES', ...query }).expect(200)).body.clusters as Cluster[];

  it('lists the CLIP model and the endpoint captioner as Active once they are there', async () => {
    const models = (await stack.request.get(`/api/v1/enrichment/${datasetId}/list_models`).expect(200)).body as Array<{ id: string; status: string }>;
    expect(models.find((model) => model.id === 'clip@1')?.status).toBe('Active');
    expect(models.find((model) => model.id === 'vision-endpoint-captioner@1')?.status).toBe('Active');
  });

  it('captions every image through the endpoint, with the configured model and key', async () => {
    const { id, task } = await enrich({ CAPTION_IMAGES: 'vision-endpoint-captioner@1' });
    expect(task).toMatchObject({ status: 'COMPLETED' });
    await waitForDatasetStatus(stack, id, ['READY']);
    expect(requests).toHaveLength(files.length);
    expect(requests.every((request) => request.model === 'test-vlm' && request.authorization === 'Bearer sk-test')).toBe(true);
    // No pooled connection waits in an open transaction on a model (a slow endpoint would starve the pool).
    expect(openTransactions).toEqual(files.map(() => 0));
    const captions = (await explore(id, { threshold: '0' })).flatMap((cluster) => cluster.previews.map((preview) => preview.caption)).sort();
    expect(captions).toEqual(requests.map((request) => `An image of ${request.bytes} bytes.`).sort());
  });

  it('fails the enrichment for good when the endpoint refuses the key, giving the source its status back', async () => {
    refuse = true;
    try {
      const { id, task } = await enrich({ CAPTION_IMAGES: 'vision-endpoint-captioner@1' });
      expect(task).toMatchObject({ status: 'FAILED', error_message: expect.stringMatching(/401/) });
      expect(task.error_message).not.toMatch(/sk-test/);
      expect((await waitForDatasetStatus(stack, id, ['ERROR'])).status_new).toBe('ERROR');
      expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('READY');
    } finally {
      refuse = false;
    }
  });

  it('ranks images by CLIP for text queries, as the CLIP model itself ranks them', async () => {
    const { id, task } = await enrich({ MULTIMODEL_IMAGE_ENCODING: 'clip@1' });
    expect(task).toMatchObject({ status: 'COMPLETED' });
    await waitForDatasetStatus(stack, id, ['READY']);
    const clip = await loadClip(modelsDir);
    try {
      for (const query of ['a photo of a cat', 'dog']) {
        const [text] = await clip.encodeTexts([query]);
        const images = await clip.encodeImages(files);
        const expected = files
          .map((file, i) => ({ name: path.basename(file), distance: 1 - images[i].reduce((sum, value, j) => sum + value * text[j], 0) }))
          .sort((a, b) => a.distance - b.distance);
        const ranked = (await explore(id, { caption: query })).flatMap((cluster) => cluster.previews.map((preview) => ({ name: preview.file_name, distance: cluster.relevance_score })));
        expect(ranked.map((item) => item.name)).toEqual(expected.map((item) => item.name));
        ranked.forEach((item, i) => expect(item.distance).toBeCloseTo(expected[i].distance, 3));
      }
    } finally {
      await clip.close();
    }
  });
});
