import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startApiServer } from '../../api/server';
import { createDb, type Db } from '../../db/connection';
import { loadConfig } from '../../lib/config';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { startTemporalDevServer } from '../../lib/embedded/temporal';
import { createLogger } from '../../lib/logger';
import { projectRoot } from '../../lib/projectRoot';
import { launchChromium, WEB_DIST } from '../../test/support/browser';
import { freePort } from './common';

/**
 * What a web bench drives: the built app served by a real API on its own Postgres and Temporal (the
 * page's health badge asks the API about Temporal; an unreachable one keeps its client retrying
 * past shutdown), with no worker, and headless Chromium. Everything is removed afterwards.
 */
export async function withWebBenchStack<T>(
  name: string,
  body: (stack: { origin: string; db: Db; browser: Browser }) => Promise<T>,
): Promise<T> {
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) execFileSync('npm', ['run', 'web:build'], { cwd: projectRoot(), stdio: 'inherit' });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name}-`));
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
  const databaseUrl = await ensureDatabase(postgres.url, `bench_${name.replaceAll('-', '_')}`);
  const temporal = await startTemporalDevServer({ dataDir: scratch, port: freePort(), namespace: 'default' });
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    DATA_DIR: path.join(scratch, 'data'),
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    API_HOST: '127.0.0.1',
    API_PORT: '0',
  });
  const api = await startApiServer(config, createLogger('bench', 'silent'));
  const db = createDb(databaseUrl, 4);
  const browser = await launchChromium();
  try {
    return await body({ origin: `http://127.0.0.1:${api.port}`, db, browser });
  } finally {
    await browser.close();
    await db.destroy();
    await api.close();
    await temporal.stop();
    await postgres.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
