import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import supertest from 'supertest';
import { createApp, type AppDeps } from '../../api/app';
import { buildApiDeps, startPipelineTrigger } from '../../api/server';
import { loadConfig, type Env } from '../../lib/config';
import { ensureDatabase } from '../../lib/embedded/postgres';
import { createLogger } from '../../lib/logger';
import { startWorkers } from '../../workers/main';

function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests through jest (globalSetup starts Postgres)');
  return url;
}

async function onServer(sql: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database for one test file, so files never see each other's rows: a copy of the run's migrated template
 * (test/support/globalSetup.ts), or `empty` for a test of the migrations themselves.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `test_${process.env.JEST_WORKER_ID ?? '0'}_${randomBytes(6).toString('hex')}`;
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (template && !options.empty) await onServer(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  const url = await ensureDatabase(serverUrl(), name);
  return { url, drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export interface TestApi {
  request: ReturnType<typeof supertest>;
  deps: AppDeps;
  /** The config the API was built from, to start a worker against the same services. */
  env: Env;
  close(): Promise<void>;
}

/** The real API (migrations, default tenant, auth) on its own database and the run's Temporal. */
export async function startTestApi(env: Env = {}): Promise<TestApi> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-api-'));
  const fullEnv: Env = {
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: '5',
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    LOG_LEVEL: 'silent',
    // A queue of its own, so workers of other test files never take this file's workflows.
    TASK_QUEUE: `test-${path.basename(database.url)}`,
    WORKFLOW_BUNDLE: process.env.WORKFLOW_BUNDLE,
    PIPELINE_PORT: '0',
    ...env,
  };
  const config = loadConfig(fullEnv);
  const deps = await buildApiDeps(config, createLogger('test-api', config.logLevel));
  return {
    request: supertest(createApp(deps).callback()),
    deps,
    env: fullEnv,
    async close() {
      await deps.hub.close();
      await deps.temporalConnection.close();
      await deps.vectors.close();
      await deps.db.destroy();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The SDK logs every worker state change; tests only want its errors. */
export function quietTemporalLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed in this process
  }
}

/** The API plus an in-process worker on the same database and task queue. */
export async function startTestStack(env: Env = {}): Promise<TestApi & { stopWorker(): Promise<void>; pipelineUrl?: string }> {
  quietTemporalLogs();
  const api = await startTestApi({ VIDEO_FRAME_INTERVAL_MS: '500', ...env });
  const { stop: stopWorker } = await startWorkers(loadConfig(api.env), createLogger('test-worker', 'silent'));
  // The API serves the on-premises pipeline trigger on its own port, as `npm run api` does.
  const pipeline = await startPipelineTrigger(api.deps);
  return {
    ...api,
    stopWorker,
    pipelineUrl: pipeline?.url,
    async close() {
      await pipeline?.close();
      await stopWorker();
      await api.close();
    },
  };
}
