import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../projectRoot';
import { spawnManaged } from './process';
import type { Running } from './supervisor';

/** The realm and client of scripts/keycloak/realm.json. */
export const KEYCLOAK_REALM = 'media';
export const KEYCLOAK_CLIENT_ID = 'media-dataset-service';

export interface EmbeddedKeycloak extends Running {
  /** Where browsers and the API reach it. */
  url: string;
  /** The realm's OIDC issuer (OIDC_ISSUER for the API). */
  issuer: string;
}

export interface KeycloakOptions {
  /** Its database (H2 file) and transaction log live in `dataDir/keycloak`. */
  dataDir: string;
  port: number;
  /** Its public base URL (the issuer's host); default http://localhost:<port>. */
  url?: string;
  /** The service's public base URL: the client's redirect and post-logout URIs live below it. */
  serviceUrl: string;
  clientSecret: string;
  /** The realm's first user (realm roles manage-users, view-users, query-users, query-groups). */
  admin: { email: string; password: string };
  /** Keycloak's own administrator (master realm), made at the first start. */
  bootstrapAdminPassword?: string;
  onLog?: (text: string) => void;
  /** The first start builds the server (about 130 s on 2 cores); later ones take about 75 s. */
  timeoutMs?: number;
  /**
   * Java's quick compiler only (-XX:TieredStopAtLevel=1): half the CPU and time to start (19 against 37 CPU s),
   * slower once warm. For a server that lives minutes and answers a few hundred requests: the tests'.
   */
  quickStart?: boolean;
}

/** Installs Keycloak's distribution into .tools/keycloak once (scripts/install-keycloak.sh); returns its home. */
export async function installKeycloak(): Promise<string> {
  const script = path.join(projectRoot(), 'scripts', 'install-keycloak.sh');
  const { stdout } = await promisify(execFile)('bash', [script], { maxBuffer: 1 << 20 });
  return stdout.trim().split('\n').pop()!;
}

/** Copies the project's realm into the distribution's data/import, where --import-realm reads it (a rename, so a start never sees half a file). */
function placeRealm(home: string): void {
  const importDir = path.join(home, 'data', 'import');
  fs.mkdirSync(importDir, { recursive: true });
  const target = path.join(importDir, `${KEYCLOAK_REALM}-realm.json`);
  const realm = fs.readFileSync(path.join(projectRoot(), 'scripts', 'keycloak', 'realm.json'));
  if (fs.existsSync(target) && fs.readFileSync(target).equals(realm)) return;
  const temporary = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, realm);
  fs.renameSync(temporary, target);
}

async function waitUntilServing(issuer: string, timeoutMs: number, exited: Promise<unknown>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let stopped = false;
  void exited.then(() => (stopped = true));
  let lastError = 'no answer yet';
  while (Date.now() < deadline && !stopped) {
    try {
      const response = await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
      lastError = `HTTP ${response.status}`;
    } catch (error) {
      lastError = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`Keycloak at ${issuer} is not serving: ${stopped ? 'process exited' : lastError}`);
}

/**
 * Starts Keycloak in development mode (`kc.sh start-dev`, H2 database under `dataDir`) with the
 * project's realm imported at its first start (placeholders filled from the environment below).
 * Resolves once the realm's discovery document answers.
 */
export async function startKeycloak(options: KeycloakOptions): Promise<EmbeddedKeycloak> {
  const home = await installKeycloak();
  placeRealm(home);
  const dir = path.join(options.dataDir, 'keycloak');
  fs.mkdirSync(dir, { recursive: true });
  const url = (options.url ?? `http://localhost:${options.port}`).replace(/\/+$/, '');
  const host = new URL(url).hostname;
  const args = [
    'start-dev',
    `--http-port=${options.port}`,
    // Reachable from elsewhere only when its public URL names another host.
    `--http-host=${['localhost', '127.0.0.1'].includes(host) ? '127.0.0.1' : '0.0.0.0'}`,
    `--hostname=${url}`,
    '--import-realm',
    `--db-url=jdbc:h2:file:${path.join(dir, 'keycloakdb')};NON_KEYWORDS=VALUE`,
    '--log-level=warn',
  ];
  const server = spawnManaged(path.join(home, 'bin', 'kc.sh'), args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: kc.sh runs java as a child, and a stop must reach both (a Ctrl-C only through the caller).
    detached: true,
    env: {
      ...process.env,
      // Its transaction log beside its database, not in the shared distribution.
      JAVA_OPTS_APPEND: [`-Dquarkus.transaction-manager.object-store.directory=${path.join(dir, 'transactions')}`, ...(options.quickStart ? ['-XX:TieredStopAtLevel=1'] : [])].join(' '),
      MDS_PUBLIC_URL: options.serviceUrl.replace(/\/+$/, ''),
      MDS_OIDC_CLIENT_SECRET: options.clientSecret,
      MDS_ADMIN_EMAIL: options.admin.email,
      MDS_ADMIN_PASSWORD: options.admin.password,
      ...(options.bootstrapAdminPassword
        ? { KC_BOOTSTRAP_ADMIN_USERNAME: 'admin', KC_BOOTSTRAP_ADMIN_PASSWORD: options.bootstrapAdminPassword }
        : {}),
    },
  });
  const forward = (chunk: Buffer) => options.onLog?.(chunk.toString('utf8'));
  server.child.stdout?.on('data', forward);
  server.child.stderr?.on('data', forward);
  const issuer = `${url}/realms/${KEYCLOAK_REALM}`;
  const stopGroup = async (signal: NodeJS.Signals, graceMs: number) => {
    const signalGroup = (sent: NodeJS.Signals) => {
      try {
        process.kill(-server.pid!, sent);
      } catch {
        // the group is gone already
      }
    };
    if (server.pid === undefined) return;
    signalGroup(signal);
    const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
    await server.exited;
    clearTimeout(timer);
  };
  try {
    await waitUntilServing(issuer, options.timeoutMs ?? 300_000, server.exited);
  } catch (error) {
    await stopGroup('SIGKILL', 0);
    throw error;
  }
  return { url, issuer, pid: server.pid, exited: server.exited, stop: () => stopGroup('SIGTERM', 20_000) };
}
