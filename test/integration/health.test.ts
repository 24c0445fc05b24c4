import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { TASK_QUEUES } from '../../workflows/taskQueues';
import { startWorkers } from '../../workers/main';
import { startTestApi, type TestApi } from '../support/testStack';

async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('GET /api/v1/health', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('reports Postgres, Temporal and the workers polling each task queue; the worker registers the search attributes', async () => {
    const config = loadConfig(api.env);
    const stopWorkers = await startWorkers(config, createLogger('test-worker', 'silent'));
    try {
      const response = await eventually(
        () => api.request.get('/api/v1/health'),
        (r) => r.body.temporal?.workers?.[TASK_QUEUES.workflows] > 0,
      );
      expect(response.status).toBe(200);
      expect(response.body.status).toBe('ok');
      expect(response.body.postgres).toEqual({ ok: true });
      expect(response.body.temporal.ok).toBe(true);
      expect(response.body.temporal.workers[TASK_QUEUES.workflows]).toBeGreaterThan(0);
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
