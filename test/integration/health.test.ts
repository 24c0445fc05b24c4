import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { startWorkers } from '../../workers/main';
import { eventually } from '../support/media';
import { startTestApi, type TestApi } from '../support/testStack';


describe('GET /api/v1/health', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('reports Postgres, Temporal and the workers polling each task queue; the worker registers the search attributes', async () => {
    const config = loadConfig(api.env);
    const { stop: stopWorkers } = await startWorkers(config, createLogger('test-worker', 'silent'));
    try {
      const response = await eventually(
        () => api.request.get('/api/v1/health'),
        // Both workers register their pollers independently; wait for both.
        (r) => r.body.temporal?.workers?.[config.temporal.taskQueue] > 0 && r.body.temporal?.workers?.[`${config.temporal.taskQueue}-inference`] > 0,
      );
      expect(response.status).toBe(200);
      expect(response.body.status).toBe('ok');
      expect(response.body.postgres).toEqual({ ok: true });
      expect(response.body.temporal.ok).toBe(true);
      expect(response.body.temporal.workers[config.temporal.taskQueue]).toBeGreaterThan(0);
      expect(response.body.temporal.workers[`${config.temporal.taskQueue}-inference`]).toBeGreaterThan(0);
      const attributes = await api.deps.temporalConnection.operatorService.listSearchAttributes({ namespace: config.temporal.namespace });
      expect(Object.keys(attributes.customAttributes)).toEqual(expect.arrayContaining(['DatasetId', 'TaskType', 'CreatedBy']));
    } finally {
      await stopWorkers();
    }
  });

  it('answers 503 with a detail when Temporal is unreachable', async () => {
    const unreachable = await startTestApi({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const response = await unreachable.request.get('/api/v1/health').expect(503);
      expect(response.body).toMatchObject({ status: 'unavailable', detail: 'A required service is unavailable', postgres: { ok: true } });
      expect(response.body.temporal.ok).toBe(false);
    } finally {
      await unreachable.close();
    }
  });

  it('answers an internal failure with a bare 500 {detail} and no stack trace', async () => {
    const broken = await startTestApi();
    await broken.deps.db.destroy();
    try {
      const response = await broken.request.get('/api/v1/datasets').expect(500);
      expect(response.body).toEqual({ detail: 'Internal server error' });
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});
