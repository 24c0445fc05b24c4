/**
 * `npm start`: the whole service on embedded defaults in one foreground process tree. Starts an
 * embedded Postgres and the Temporal dev server unless DATABASE_URL / TEMPORAL_ADDRESS point
 * elsewhere, then the worker and the API as child processes, and restarts any of them that crashes
 * (with backoff). With RUN_MODE=ONPREM, DISABLE_AUTH=false and no OIDC_ISSUER it also installs and
 * starts an embedded Keycloak, the identity provider users log in through.
 * Ctrl-C stops everything: the API and worker, then Keycloak and Temporal, then Postgres.
 */
import path from 'node:path';
import { ConfigError, embeddedTemporalUiUrl, loadConfig, pipelineTriggerAccess, type Config } from '../lib/config';
import { loadOrCreateSecretFile, loadOrCreateSecretKey } from '../lib/auth/secretKey';
import { KEYCLOAK_CLIENT_ID, startKeycloak, type EmbeddedKeycloak } from '../lib/embedded/keycloak';
import { ensureDatabase, startEmbeddedPostgres } from '../lib/embedded/postgres';
import { spawnManaged, type ManagedProcess } from '../lib/embedded/process';
import { supervise, type Running, type Supervisor } from '../lib/embedded/supervisor';
import { startTemporalDevServer } from '../lib/embedded/temporal';
import { workerProcessEnv } from '../lib/embedded/workerProcesses';

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

/** The embedded Keycloak, started in the background (it takes a minute or more); undefined when not wanted. */
function startEmbeddedKeycloak(config: Config): Promise<Supervisor<EmbeddedKeycloak>> | undefined {
  if (config.runMode !== 'ONPREM' || config.disableAuth || config.oidc) return undefined;
  const dir = path.join(config.dataDir, 'keycloak');
  const passwordFile = path.join(dir, 'admin.password');
  const options = {
    dataDir: config.dataDir,
    port: config.keycloak.port,
    url: config.keycloak.url,
    serviceUrl: config.publicUrl,
    clientSecret: config.keycloak.clientSecret ?? loadOrCreateSecretFile(path.join(dir, 'client.secret')),
    admin: { email: config.admin.email, password: config.admin.password ?? loadOrCreateSecretFile(passwordFile, 12) },
    bootstrapAdminPassword: loadOrCreateSecretFile(path.join(dir, 'master-admin.password'), 18),
  };
  say(`starting the embedded Keycloak on ${config.keycloak.url} (the first start installs and builds it: a few minutes)`);
  if (!config.admin.password) say(`first user ${config.admin.email}: its password is in ${passwordFile} (or set ADMIN_PASSWORD before the first start)`);
  return supervise({ name: 'Keycloak', start: () => startKeycloak(options), log: say });
}

async function main(config: Config): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: config.dataDir };
  let shuttingDown = false;
  let postgres: Supervisor<Running> | undefined;
  let temporal: Supervisor<Running> | undefined;
  let keycloakStarting: Promise<Supervisor<EmbeddedKeycloak>> | undefined;
  const children: Array<Supervisor<Running>> = [];
  const running = (name: string, service: Supervisor<Running>) => say(`${name} running (pid ${service.current().pid})`);

  // The API and worker stop first, then Temporal, then Postgres: each still has what it needs while stopping.
  const shutdown = async (signal: NodeJS.Signals, exitCode: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    say(`stopping (${signal})`);
    await Promise.all(children.map((child) => child.stop().catch(() => undefined)));
    if (children.length > 0) say('stopped API and workers');
    if (keycloakStarting) {
      await keycloakStarting.then((keycloak) => keycloak.stop()).catch(() => undefined);
      say('stopped Keycloak');
    }
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
    // In parallel with Postgres and Temporal: it is the slowest to start.
    keycloakStarting = startEmbeddedKeycloak(config);
    keycloakStarting?.catch(() => undefined); // awaited below, where a failed start is reported
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
      // The API links tasks to the UI of the Temporal it was given; with TEMPORAL_ADDRESS set it would assume none.
      temporalUi = config.temporal.uiUrl ?? embeddedTemporalUiUrl(config.publicUrl, config.temporal.embeddedUiPort);
      env.TEMPORAL_UI_URL = temporalUi;
      running('Temporal', temporal);
    }
    env.SECRET_KEY = config.secretKey ?? loadOrCreateSecretKey(config.dataDir);
    let keycloak: EmbeddedKeycloak | undefined;
    if (keycloakStarting) {
      const server = await keycloakStarting;
      keycloak = server.current();
      env.OIDC_ISSUER = keycloak.issuer;
      env.OIDC_CLIENT_ID = KEYCLOAK_CLIENT_ID;
      env.OIDC_CLIENT_SECRET = config.keycloak.clientSecret ?? loadOrCreateSecretFile(path.join(config.dataDir, 'keycloak', 'client.secret'));
      running('Keycloak', server);
    }

    const workerEnv = workerProcessEnv(env, config.workerProcesses);
    for (let i = 1; i <= config.workerProcesses; i++) {
      const name = config.workerProcesses === 1 ? 'worker' : `worker ${i}`;
      const worker = await supervise({ name, start: async () => startChild('worker', workerEnv), log: say });
      children.push(worker);
      running(name, worker);
    }
    const api = await supervise({ name: 'API', start: () => startApi(config.api.port, env), log: say });
    children.push(api);
    running('API', api);
    say(`Web app      ${config.publicUrl}/   <- open this`);
    say(`API          ${config.publicUrl}/api/v1`);
    if (!process.env.PUBLIC_URL) say(`PUBLIC_URL is not set: links and logins name ${config.publicUrl}; set it when users reach this machine by another name`);
    say(`Temporal     ${env.TEMPORAL_ADDRESS} (namespace ${config.temporal.namespace})`);
    if (temporalUi) say(`Temporal UI  ${temporalUi}`);
    if (keycloak) say(`Keycloak     ${keycloak.url} (realm ${keycloak.issuer.split('/').pop()}; log in at ${config.publicUrl}/api/v1/auth/oidc/login)`);
    else if (config.oidc) say(`OIDC issuer  ${config.oidc.issuer}`);
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
