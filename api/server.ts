import http from 'node:http';
import { Client, Connection } from '@temporalio/client';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { createSecretBox } from '../lib/auth/secretBox';
import { createUrlSigner } from '../lib/auth/signedUrls';
import { loadOrCreateSecretKey } from '../lib/auth/secretKey';
import { runMain } from '../lib/runMain';
import { createDb, migrateLatest } from '../db/connection';
import { ensureDefaultTenant } from '../db/repositories/users';
import { createObjectStore } from '../lib/storage/createObjectStore';
import { createVectorStore } from '../lib/vectors/createVectorStore';
import { loadTextEncoder, type TextEncoder } from '../lib/ml/textEncoder';
import { createNotificationHub } from '../lib/notifications/notificationHub';
import { createApp, type AppDeps } from './app';

/** Connects to Postgres and Temporal, migrates the schema and ensures the default tenant. */
export async function buildApiDeps(config: Config, logger: Logger): Promise<AppDeps> {
  if (!config.database.url) throw new Error('DATABASE_URL is required to start the API');
  if (!config.temporal.address) throw new Error('TEMPORAL_ADDRESS is required to start the API');
  const db = createDb(config.database.url, config.database.poolMax);
  await migrateLatest(db);
  const { admin } = await ensureDefaultTenant(db, config.admin);
  // Lazy: the API starts (and /health reports it) while Temporal is still coming up.
  const temporalConnection = Connection.lazy({ address: config.temporal.address });
  const temporal = new Client({ connection: temporalConnection, namespace: config.temporal.namespace });
  const secretKey = config.secretKey ?? loadOrCreateSecretKey(config.dataDir);
  const secretBox = createSecretBox(secretKey);
  const signer = createUrlSigner(secretKey, config.mediaUrlTtlSeconds);
  const store = createObjectStore(config);
  const vectors = createVectorStore(config, db);
  let textEncoder: Promise<TextEncoder> | undefined;
  const loadText = () => (textEncoder ??= loadTextEncoder(config.models.dir, 1));
  const hub = createNotificationHub(config.database.url, (error) => logger.warn({ err: error }, 'notification listener'));
  return { config, db, temporalConnection, temporal, store, vectors, textEncoder: loadText, logger, secretBox, signer, hub, defaultUser: admin };
}

export async function startApiServer(config: Config, logger: Logger) {
  const deps = await buildApiDeps(config, logger);
  const server = http.createServer(createApp(deps).callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.api.port, config.api.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.api.port;
  logger.info({ port }, 'api listening');
  return {
    port,
    async close() {
      // Long-lived responses (notification streams) would hold close() open: end them first.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await deps.hub.close();
      await deps.temporalConnection.close();
      await deps.vectors.close();
      await deps.db.destroy();
    },
  };
}

if (require.main === module) {
  runMain('api', async (config, logger) => {
    const api = await startApiServer(config, logger);
    return () => api.close();
  });
}
