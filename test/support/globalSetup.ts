import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '@jest/types';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { createDb, migrateLatest } from '../../db/connection';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { startTemporalDevServer } from '../../lib/embedded/temporal';
import { startKeycloakForIdentityTests } from './keycloak';
import { freePort } from './ports';
import { findQdrantBinary, startQdrantServer } from './qdrant';

const TEMPLATE_DATABASE = 'test_template';
/**
 * The run's data is thrown away after the run, so Postgres need not wait for the disk. Commits stay synchronous:
 * VACUUM marks no page all-visible while a commit on it has not reached the WAL (rankedExplore's index-only scans).
 */
const NOT_DURABLE = { fsync: 'off', full_page_writes: 'off' };

/** The migrated schema every test file's database is copied from (test/support/testStack.ts): migrated once a run. */
async function prepareTemplateDatabase(serverUrl: string): Promise<void> {
  const db = createDb(await ensureDatabase(serverUrl, TEMPLATE_DATABASE));
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  process.env.TEST_TEMPLATE_DATABASE = TEMPLATE_DATABASE;
}

/** The workflows bundled once a run: every worker a test starts loads this file (WORKFLOW_BUNDLE) instead of bundling its own. */
async function prepareWorkflowBundle(dataDir: string): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: require.resolve('../../workflows'), logger: new DefaultLogger('WARN') });
  const file = path.join(dataDir, 'workflow-bundle.js');
  fs.writeFileSync(file, code);
  process.env.WORKFLOW_BUNDLE = file;
}

/**
 * Starts one embedded Postgres and one Temporal dev server for the whole run (unless
 * TEST_DATABASE_URL / TEMPORAL_ADDRESS name existing ones); test files get their own databases.
 * Keycloak too, in the background, when a test of test/integration/identity is selected (test/support/keycloak.ts).
 * A Qdrant server too (unless TEST_QDRANT_URL names one) when there is a binary (test/support/qdrant.ts);
 * without one the Qdrant suites are not registered, and this says so.
 */
export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  // Looked up first: a bad QDRANT_BIN fails the run before any server starts.
  const qdrantBinary = process.env.TEST_QDRANT_URL ? undefined : findQdrantBinary();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-test-'));
  const stops: Array<() => Promise<void>> = [];
  // First, and not awaited: it is the slowest to start, and only the identity tests wait for it.
  const keycloak = await startKeycloakForIdentityTests(globalConfig, dataDir);
  if (keycloak) stops.push(keycloak.stop);
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  // Postgres (then the template), Temporal and the workflow bundle, side by side.
  const postgresAndTemplate = async () => {
    if (!process.env.TEST_DATABASE_URL) {
      const postgres = await startEmbeddedPostgres({ dataDir, port: await freePort(), settings: NOT_DURABLE });
      stops.push(postgres.stop);
      process.env.TEST_DATABASE_URL = postgres.url;
    }
    await prepareTemplateDatabase(process.env.TEST_DATABASE_URL);
  };
  const temporal = async () => {
    if (process.env.TEMPORAL_ADDRESS) return;
    const server = await startTemporalDevServer({ dataDir, port: await freePort(), namespace: 'default', inMemory: true });
    stops.push(server.stop);
    process.env.TEMPORAL_ADDRESS = server.address;
  };
  // jest runs no teardown when the setup fails: stop what already runs, once every start has ended.
  const failed = (await Promise.allSettled([postgresAndTemplate(), temporal(), prepareWorkflowBundle(dataDir)])).find((result) => result.status === 'rejected');
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  if (!process.env.TEST_QDRANT_URL) {
    if (!qdrantBinary) {
      process.stdout.write('\n[tests] Qdrant suites NOT registered (not run): no Qdrant server binary; set QDRANT_BIN to run them.\n');
    } else {
      const qdrant = await startQdrantServer({ binary: qdrantBinary, dataDir: path.join(dataDir, 'qdrant') }).catch(async (error: unknown) => {
        await stopAll();
        throw error;
      });
      stops.push(qdrant.stop);
      process.env.TEST_QDRANT_URL = qdrant.url;
    }
  }
  (globalThis as { __testServices?: unknown }).__testServices = { stop: stopAll };
}
