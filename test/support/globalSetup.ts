import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { startTemporalDevServer } from '../../lib/embedded/temporal';
import { freePort } from './ports';

/**
 * Starts one embedded Postgres and one Temporal dev server for the whole run (unless
 * TEST_DATABASE_URL / TEMPORAL_ADDRESS name existing ones); test files get their own databases.
 */
export default async function globalSetup(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-test-'));
  const stops: Array<() => Promise<void>> = [];
  if (!process.env.TEST_DATABASE_URL) {
    const postgres = await startEmbeddedPostgres({ dataDir, port: await freePort() });
    stops.push(postgres.stop);
    process.env.TEST_DATABASE_URL = postgres.url;
  }
  if (!process.env.TEMPORAL_ADDRESS) {
    const temporal = await startTemporalDevServer({ dataDir, port: await freePort(), namespace: 'default' });
    stops.push(temporal.stop);
    process.env.TEMPORAL_ADDRESS = temporal.address;
  }
  (globalThis as { __testServices?: unknown }).__testServices = {
    async stop() {
      for (const stop of stops.reverse()) await stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
