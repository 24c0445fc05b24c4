/**
 * `npm start`: the whole service on embedded defaults in one foreground process tree. Starts an
 * embedded Postgres and the Temporal dev server unless DATABASE_URL / TEMPORAL_ADDRESS point
 * elsewhere, then the worker and the API as child processes. Ctrl-C stops everything.
 */
import path from 'node:path';
import { ConfigError, loadConfig, pipelineTriggerAccess, type Config } from '../lib/config';
import { loadOrCreateSecretKey } from '../lib/auth/secretKey';
import { ensureDatabase, startEmbeddedPostgres } from '../lib/embedded/postgres';
import { spawnManaged, type ManagedProcess } from '../lib/embedded/process';
import { startTemporalDevServer } from '../lib/embedded/temporal';

const say = (line: string) => process.stdout.write(`[start] ${line}\n`);

function startChild(name: 'api' | 'worker', env: NodeJS.ProcessEnv): ManagedProcess {
  const folder = name === 'api' ? 'api' : 'workers';
  const file = name === 'api' ? 'server' : 'main';
  // Same runtime flags as this process, so it works under tsx and from the compiled build.
  const entry = path.join(__dirname, '..', folder, `${file}${path.extname(__filename)}`);
  return spawnManaged(process.execPath, [...process.execArgv, entry], { env, stdio: 'inherit' });
}

async function waitForApi(port: number, child: ManagedProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.child.exitCode !== null) throw new Error('the API process exited during start-up');
    try {
      await fetch(`http://127.0.0.1:${port}/api/v1/health`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`the API did not answer on port ${port} within ${timeoutMs} ms`);
}

async function main(config: Config): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: config.dataDir };
  let shuttingDown = false;
  const children: ManagedProcess[] = [];

  // The API and worker stop first, then Temporal, then Postgres.
  const shutdown = async (signal: NodeJS.Signals, exitCode: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    say(`stopping (${signal})`);
    await Promise.all(children.map((child) => child.stop(signal)));
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    say('stopped');
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));

  try {
    if (!config.database.url) {
      const postgres = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.database.embeddedPort });
      stops.push(postgres.stop);
      env.DATABASE_URL = await ensureDatabase(postgres.url, 'media_dataset');
      say(`embedded Postgres on 127.0.0.1:${config.database.embeddedPort} (data in ${path.join(config.dataDir, 'postgres')})`);
    }
    let temporalUi: string | undefined;
    if (!config.temporal.address) {
      const temporal = await startTemporalDevServer({
        dataDir: config.dataDir,
        port: config.temporal.embeddedPort,
        uiPort: config.temporal.embeddedUiPort,
        namespace: config.temporal.namespace,
        binary: config.temporal.binary,
      });
      stops.push(temporal.stop);
      env.TEMPORAL_ADDRESS = temporal.address;
      temporalUi = temporal.uiUrl;
    }
    env.SECRET_KEY = config.secretKey ?? loadOrCreateSecretKey(config.dataDir);

    const worker = startChild('worker', env);
    const api = startChild('api', env);
    children.push(worker, api);
    for (const child of children) {
      void child.exited.then((code) => {
        if (!shuttingDown) {
          say(`a child process exited unexpectedly (code ${code}); stopping`);
          void shutdown('SIGTERM', 1);
        }
      });
    }
    await waitForApi(config.api.port, api);
    say(`API          http://localhost:${config.api.port}/api/v1`);
    say(`Temporal     ${env.TEMPORAL_ADDRESS} (namespace ${config.temporal.namespace})`);
    if (temporalUi) say(`Temporal UI  ${temporalUi}`);
    if (pipelineTriggerAccess(config).serve) say(`Pipeline     http://${config.pipeline.host}:${config.pipeline.port}/api/v1/process/add_media`);
    say(`auth ${config.disableAuth ? 'disabled: requests act as ' + config.admin.email : 'enabled'} (RUN_MODE=${config.runMode})`);
  } catch (error) {
    say(`start-up failed: ${(error as Error).message}`);
    await shutdown('SIGTERM', 1);
  }
}

try {
  void main(loadConfig());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}
