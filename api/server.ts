import http from 'node:http';
import type { Duplex } from 'node:stream';
import { Client } from '@temporalio/client';
import { pipelineTriggerAccess, type Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { createSecretBox } from '../lib/auth/secretBox';
import { createUrlSigner } from '../lib/auth/signedUrls';
import { loadOrCreateSecretKey } from '../lib/auth/secretKey';
import { runMain } from '../lib/runMain';
import { createDb, migrateLatest } from '../db/connection';
import { connectTemporalLazily } from '../lib/temporal/connection';
import { ensureDefaultTenant } from '../db/repositories/users';
import { createObjectStore } from '../lib/storage/createObjectStore';
import { removeStaleStagedFiles, uploadStagingDir } from '../lib/storage/staging';
import { createVectorStore } from '../lib/vectors/createVectorStore';
import { createVectorPointRows } from '../db/repositories/vectorPoints';
import { loadTextEncoder, type TextEncoder } from '../lib/ml/textEncoder';
import { loadClip } from '../lib/ml/clip';
import { lazy } from '../lib/lazy';
import { createNotificationHub } from '../lib/notifications/notificationHub';
import { requestStorageCollection } from '../services/storageCollection';
import { createApp, type AppDeps } from './app';
import { startPipelineServer } from './pipelineServer';

/** Connects to Postgres and Temporal, migrates the schema and ensures the default tenant. */
export async function buildApiDeps(config: Config, logger: Logger): Promise<AppDeps> {
  if (!config.database.url) throw new Error('DATABASE_URL is required to start the API');
  if (!config.temporal.address) throw new Error('TEMPORAL_ADDRESS is required to start the API');
  const db = createDb(config.database.url, config.database.poolMax, config.database);
  await migrateLatest(db);
  const { admin } = await ensureDefaultTenant(db, config.admin);
  const leftovers = await removeStaleStagedFiles(uploadStagingDir(config), config.uploads.staleAfterMs);
  if (leftovers.length > 0) logger.info({ removed: leftovers.length }, 'removed leftover staged uploads');
  // Lazy: the API starts (and /health reports it) while Temporal is still coming up; each call is bounded.
  const temporalConnection = connectTemporalLazily(config.temporal.address, config.temporal.rpcTimeoutMs);
  const temporal = new Client({ connection: temporalConnection, namespace: config.temporal.namespace });
  const secretKey = config.secretKey ?? loadOrCreateSecretKey(config.dataDir);
  const secretBox = createSecretBox(secretKey);
  const signer = createUrlSigner(secretKey, config.mediaUrlTtlSeconds);
  const store = createObjectStore(config);
  const vectors = createVectorStore(config, createVectorPointRows(db), { objects: store, role: 'api', logger });
  let textEncoder: Promise<TextEncoder> | undefined;
  const loadText = () => (textEncoder ??= loadTextEncoder(config.models.dir, 1));
  const clip = lazy(() => loadClip(config.models.dir, 1));
  const hub = createNotificationHub(config.database.url, (error) => logger.warn({ err: error }, 'notification listener'));
  return { config, db, temporalConnection, temporal, store, vectors, textEncoder: loadText, clip: clip.get, logger, secretBox, signer, hub, defaultUser: admin };
}

const CLIENT_ERROR_STATUS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request header fields too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timed out'],
};

/**
 * Requests Node refuses before the app sees them (headers too large, unparsable HTTP) get the
 * same `{"detail"}` body as every other error, then the connection closes.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // As Node's own handler does: never write into a response already under way on this socket.
  const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse })._httpMessage;
  if (!socket.writable || inFlight?.headersSent || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, detail] = CLIENT_ERROR_STATUS[error.code ?? ''] ?? [400, 'Malformed HTTP request'];
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Node answers an Expect header other than 100-continue itself, with an empty body: give it the usual {detail}. */
function refuseExpectation(_req: http.IncomingMessage, res: http.ServerResponse): void {
  const body = JSON.stringify({ detail: 'Only "Expect: 100-continue" is supported' });
  res.writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}

/** The API's HTTP server (not yet listening). */
export function createApiServer(deps: AppDeps): http.Server {
  const server = http.createServer(createApp(deps).callback());
  server.on('clientError', answerClientError);
  server.on('checkExpectation', refuseExpectation);
  return server;
}

/** The on-premises pipeline trigger on its own port, where the configuration allows it (see pipelineTriggerAccess). */
export async function startPipelineTrigger(deps: AppDeps) {
  const access = pipelineTriggerAccess(deps.config);
  if (!access.serve) {
    deps.logger.info({ reason: access.reason }, 'pipeline trigger not served');
    return undefined;
  }
  return startPipelineServer(deps, access);
}

/**
 * Readies every vector collection for its first search, one after another, while the API already serves: a visual
 * search would otherwise wait for its dataset's index to load (docs/decisions.md "The API warms the vector indexes as it starts").
 */
function warmVectorIndexes(deps: AppDeps): Promise<void> & { stop(): void } {
  let stopped = false;
  const run = (async () => {
    for (const collection of await deps.vectors.listCollections()) {
      if (stopped) return;
      await deps.vectors.warm(collection).catch((error: unknown) => deps.logger.warn({ err: error, collection }, 'vector index not warmed; its first search loads it'));
    }
  })().catch((error: unknown) => deps.logger.warn({ err: error }, 'vector indexes not warmed; each first search loads its own'));
  return Object.assign(run, { stop: () => (stopped = true) });
}

export async function startApiServer(config: Config, logger: Logger) {
  const deps = await buildApiDeps(config, logger);
  const pipeline = await startPipelineTrigger(deps);
  const server = createApiServer(deps);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.api.port, config.api.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.api.port;
  logger.info({ port }, 'api listening');
  // The storage collector runs on a Temporal timer; starting it here brings it back if it was ever terminated.
  requestStorageCollection({ temporal: deps.temporal, taskQueue: config.temporal.taskQueue }).catch((error: unknown) =>
    logger.warn({ err: error }, 'storage collector not started; it starts with the next dataset delete or API start'),
  );
  const warming = warmVectorIndexes(deps);
  return {
    port,
    pipelineUrl: pipeline?.url,
    /** Settles when every vector collection is ready for its first search (the API serves meanwhile). */
    warmed: warming,
    async close() {
      warming.stop();
      await warming;
      await pipeline?.close();
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
