import { loadConfig } from '../../../lib/config';
import { createReadyDataset } from '../../support/datasets';
import { eventually, photo } from '../../support/media';
import { startTestStack } from '../../support/testStack';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const PUBLIC_URL = 'https://media.example.org';

/** Links the API hands out name PUBLIC_URL, whatever host the request names (behind a trusted proxy too). */
describe('the public origin is configuration, not a request header', () => {
  let stack: Stack;
  let datasetId: string;

  beforeAll(async () => {
    stack = await startTestStack({ PUBLIC_URL, TRUST_PROXY: 'true' });
    datasetId = await createReadyDataset(stack, 'links', [photo('chelsea')]);
  });
  afterAll(() => stack?.close());

  const attacker = { Host: 'attacker.example', 'X-Forwarded-Host': 'attacker.example', 'X-Forwarded-Proto': 'http', Origin: 'http://attacker.example' };

  it('gives media links and export download links under PUBLIC_URL whatever Host or X-Forwarded-Host the request carries', async () => {
    const explore = await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES' }).set(attacker).expect(200);
    const previews = explore.body.clusters.flatMap((cluster: { previews: Array<{ media_uri: string; media_thumb_uri: string }> }) => cluster.previews);
    expect(previews.length).toBeGreaterThan(0);
    for (const preview of previews) {
      expect(preview.media_uri.startsWith(`${PUBLIC_URL}/api/v1/media/`)).toBe(true);
      expect(preview.media_thumb_uri.startsWith(`${PUBLIC_URL}/api/v1/media/`)).toBe(true);
    }

    const exportsOf = `/api/v1/dataset/${datasetId}`;
    const { id } = (await stack.request.get(`${exportsOf}/export_context_async`).query({ file_name: 'links', export_format: 'json' }).expect(200)).body;
    const status = await eventually(
      async () => (await stack.request.get(`${exportsOf}/export_status`).query({ export_task_id: id }).set(attacker).expect(200)).body,
      (body) => body.status === 'COMPLETED' || body.status === 'FAILED',
    );
    expect(status.status).toBe('COMPLETED');
    expect(status.download_uri.startsWith(`${PUBLIC_URL}/api/v1/exports/${id}/links.zip?`)).toBe(true);
  });

  it('defaults PUBLIC_URL to the listen address (localhost for any-address hosts), never the request', () => {
    expect(loadConfig({}).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ API_HOST: '::', API_PORT: '9000' }).publicUrl).toBe('http://localhost:9000');
    expect(loadConfig({ API_HOST: '10.0.0.5', API_PORT: '80' }).publicUrl).toBe('http://10.0.0.5:80');
    expect(loadConfig({ API_HOST: 'fd00::5' }).publicUrl).toBe('http://[fd00::5]:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://media.example.org/' }).publicUrl).toBe('https://media.example.org');
  });
});
