/**
 * `npm start`: the whole service on embedded defaults in one foreground process tree. Starts an
 * embedded Postgres and the Temporal dev server unless DATABASE_URL / TEMPORAL_ADDRESS point
 * elsewhere, then the worker and the API as child processes, and restarts any of them that crashes
 * (with backoff). Ctrl-C stops everything: the API and worker, then Temporal, then Postgres.
 */
import path from 'node:path';
import { ConfigError, loadConfig, pipelineTriggerAccess, type Config } from '../lib/config';
import { loadOrCreateSecretKey } from '../lib/auth/secretKey';
import { ensureDatabase, startEmbeddedPostgres } from '../lib/embedded/postgres';
import { spawnManaged, type ManagedProcess } from '../lib/embedded/process';
import { supervise, type Running, type Supervisor } from '../lib/embedded/supervisor';
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
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error('the API process exited during start-up');
    try {
      await fetch(`http://127.0.0.1:${port}/api/v1/health`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`the API did not answer on port ${port} within ${timeoutMs} ms`);
}

/** The API process, once it answers HTTP. */
async function startApi(port: number, env: NodeJS.ProcessEnv): Promise<ManagedProcess> {
  const api = startChild('api', env);
  try {
    await waitForApi(port, api);
  } catch (error) {
    await api.stop('SIGKILL');
    throw error;
  }
  return api;
}

async function main(config: Config): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: config.dataDir };
  let shuttingDown = false;
  let postgres: Supervisor<Running> | undefined;
  let temporal: Supervisor<Running> | undefined;
  const children: Array<Supervisor<Running>> = [];
  const running = (name: string, service: Supervisor<Running>) => say(`${name} running (pid ${service.current().pid})`);

  // The API and worker stop first, then Temporal, then Postgres: each still has what it needs while stopping.
  const shutdown = async (signal: NodeJS.Signals, exitCode: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    say(`stopping (${signal})`);
    await Promise.all(children.map((child) => child.stop().catch(() => undefined)));
    if (children.length > 0) say('stopped API and worker');
    if (temporal) {
      await temporal.stop().catch(() => undefined);
      say('stopped Temporal');
    }
    if (postgres) {
      await postgres.stop().catch(() => undefined);
      say('stopped Postgres');
    }
    say('stopped');
    process.exit(exitCode);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal, 0));

  try {
    if (!config.database.url) {
      // Its own process group: a Ctrl-C in the terminal reaches it only through shutdown(), after the API and worker.
      const options = { dataDir: config.dataDir, port: config.database.embeddedPort, ownProcessGroup: true };
      const server = await supervise({ name: 'Postgres', start: () => startEmbeddedPostgres(options), log: say });
      postgres = server;
      env.DATABASE_URL = await ensureDatabase(server.current().url, 'media_dataset');
      say(`embedded Postgres on 127.0.0.1:${config.database.embeddedPort} (data in ${path.join(config.dataDir, 'postgres')})`);
      running('Postgres', postgres);
    }
    let temporalUi: string | undefined;
    if (!config.temporal.address) {
      const options = {
        dataDir: config.dataDir,
        port: config.temporal.embeddedPort,
        uiPort: config.temporal.embeddedUiPort,
        namespace: config.temporal.namespace,
        binary: config.temporal.binary,
        ownProcessGroup: true,
      };
      const server = await supervise({ name: 'Temporal', start: () => startTemporalDevServer(options), log: say });
      temporal = server;
      env.TEMPORAL_ADDRESS = server.current().address;
      temporalUi = server.current().uiUrl;
      running('Temporal', temporal);
    }
    env.SECRET_KEY = config.secretKey ?? loadOrCreateSecretKey(config.dataDir);

    const worker = await supervise({ name: 'worker', start: async () => startChild('worker', env), log: say });
    children.push(worker);
    running('worker', worker);
    const api = await supervise({ name: 'API', start: () => startApi(config.api.port, env), log: say });
    children.push(api);
    running('API', api);
    say(`API          http://localhost:${config.api.port}/api/v1`);
    say(`Temporal     ${env.TEMPORAL_ADDRESS} (namespace ${config.temporal.namespace})`);
    if (temporalUi) say(`Temporal UI  ${temporalUi}`);
    if (pipelineTriggerAccess(config).serve) say(`Pipeline     http://${config.pipeline.host}:${config.pipeline.port}/api/v1/process/add_media (worker)`);
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
