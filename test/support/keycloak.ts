import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '@jest/types';
import { randomToken } from '../../lib/auth/randomTokens';
import { startKeycloak } from '../../lib/embedded/keycloak';
import { projectRoot } from '../../lib/projectRoot';
import { freePort } from './ports';

/** The service's public base URL the test realm's client redirects to (the tests' HTTP client maps it to the API under test). */
export const TEST_SERVICE_URL = 'http://mds.test';
export const TEST_ADMIN_EMAIL = 'admin@localhost.localdomain';
/** The test files that need the identity provider. */
const IDENTITY_TESTS = path.join(projectRoot(), 'test', 'integration', 'identity');

export interface TestKeycloak {
  issuer: string;
  /** Keycloak's base URL (admin REST API below it). */
  url: string;
  clientId: string;
  clientSecret: string;
  admin: { email: string; password: string };
  /** Keycloak's own administrator (master realm), for what the realm's service account may not change (its client). */
  masterAdmin: { username: string; password: string };
}

/** The last lines of a log file, or a note that there is none. */
function logTail(file: string, lines = 40): string {
  if (!fs.existsSync(file)) return '(no Keycloak log)';
  return `Keycloak's log ends:\n${fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')}`;
}

function identityTestsSelected(globalConfig: Config.GlobalConfig): boolean {
  if (!fs.existsSync(IDENTITY_TESTS)) return false;
  const patterns = globalConfig.testPathPatterns.toExecutor({ rootDir: globalConfig.rootDir });
  if (!patterns.isSet()) return true;
  return fs.readdirSync(IDENTITY_TESTS).some((file) => file.endsWith('.test.ts') && patterns.isMatch(path.join(IDENTITY_TESTS, file)));
}

/**
 * Starts one Keycloak for the whole run, in the background (about 40-130 s), when a test of
 * test/integration/identity is selected; those tests wait for it (waitForTestKeycloak). Returns how
 * to stop it, or undefined when it is not wanted.
 */
export async function startKeycloakForIdentityTests(
  globalConfig: Config.GlobalConfig,
  dataDir: string,
): Promise<{ stop(): Promise<void> } | undefined> {
  if (process.env.TEST_KEYCLOAK || !identityTestsSelected(globalConfig)) return undefined;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const settings: TestKeycloak = {
    issuer: `${url}/realms/media`,
    url,
    clientId: 'media-dataset-service',
    clientSecret: randomToken(),
    admin: { email: TEST_ADMIN_EMAIL, password: randomToken(12) },
    masterAdmin: { username: 'admin', password: randomToken(16) },
  };
  const stateDir = path.join(dataDir, 'keycloak-state');
  fs.mkdirSync(stateDir, { recursive: true });
  const log = fs.createWriteStream(path.join(stateDir, 'keycloak.log'));
  const startedAt = Date.now();
  const start = (attemptDir: string) =>
    startKeycloak({
      dataDir: attemptDir,
      port,
      url,
      serviceUrl: TEST_SERVICE_URL,
      clientSecret: settings.clientSecret,
      admin: settings.admin,
      bootstrapAdminPassword: settings.masterAdmin.password,
      onLog: (text) => log.write(text),
      quickStart: true,
    });
  // A start on a machine busy with the rest of the suite's set-up has, rarely, seen Keycloak's process exit early:
  // one more start, in a fresh folder on the same port (the workers already know the URL), before the tests hear of it.
  const starting = start(dataDir).catch((error: unknown) => {
    log.write(`\n[tests] Keycloak's first start failed (${String(error)}); starting it again\n`);
    return start(path.join(dataDir, 'keycloak-second-start'));
  });
  starting.then(
    () => {
      const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
      fs.writeFileSync(path.join(stateDir, 'ready'), seconds);
      process.stdout.write(`\n[tests] Keycloak ready in ${seconds} s (${url})\n`);
    },
    // The tests report this: with the end of Keycloak's own log, which the run's folder takes with it.
    (error: unknown) => fs.writeFileSync(path.join(stateDir, 'failed'), `${String(error)}\n${logTail(path.join(stateDir, 'keycloak.log'))}`),
  );
  // Test workers inherit the environment of the process that runs this setup.
  process.env.TEST_KEYCLOAK = JSON.stringify({ ...settings, stateDir });
  return {
    async stop() {
      const keycloak = await starting.catch(() => undefined);
      await keycloak?.stop();
      log.end();
    },
  };
}

/** The run's Keycloak once it serves (the first start of a machine builds it: allow minutes). */
export async function waitForTestKeycloak(timeoutMs = 300_000): Promise<TestKeycloak> {
  if (!process.env.TEST_KEYCLOAK) throw new Error('No Keycloak in this run: identity tests live in test/integration/identity (globalSetup starts it for them)');
  const { stateDir, ...settings } = JSON.parse(process.env.TEST_KEYCLOAK) as TestKeycloak & { stateDir?: string };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (stateDir && fs.existsSync(path.join(stateDir, 'failed'))) {
      throw new Error(`Keycloak did not start: ${fs.readFileSync(path.join(stateDir, 'failed'), 'utf8')}`);
    }
    try {
      if ((await fetch(`${settings.issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(2000) })).ok) return settings;
    } catch {
      // not yet serving
    }
    if (Date.now() > deadline) throw new Error(`Keycloak at ${settings.url} did not serve within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A token of the realm client's service account (client credentials), for the admin REST API. */
async function serviceAccountToken(keycloak: TestKeycloak): Promise<string> {
  const response = await fetch(`${keycloak.issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: keycloak.clientId, client_secret: keycloak.clientSecret }),
  });
  if (!response.ok) throw new Error(`client credentials refused: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** Creates a user in the realm directly (as an administrator would in Keycloak's console); returns its id. */
export async function createKeycloakUser(
  keycloak: TestKeycloak,
  user: { username: string; email?: string; password: string; emailVerified?: boolean; firstName?: string; lastName?: string },
): Promise<string> {
  const response = await fetch(`${keycloak.url}/admin/realms/media/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await serviceAccountToken(keycloak)}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      username: user.username,
      email: user.email,
      emailVerified: user.emailVerified ?? true,
      firstName: user.firstName ?? 'Test',
      lastName: user.lastName ?? 'User',
      enabled: true,
      credentials: [{ type: 'password', value: user.password, temporary: false }],
    }),
  });
  if (response.status !== 201) throw new Error(`creating ${user.username} answered ${response.status}: ${await response.text()}`);
  return response.headers.get('location')!.split('/').pop()!;
}

/**
 * Lets the realm's client redirect to `serviceUrl` too, as the realm `npm start` imports for that
 * public URL would (scripts/keycloak/realm.json): its callback, and its pages after a logout.
 */
export async function allowServiceUrl(keycloak: TestKeycloak, serviceUrl: string): Promise<void> {
  const tokenResponse = await fetch(`${keycloak.url}/realms/master/protocol/openid-connect/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', ...keycloak.masterAdmin }),
  });
  if (!tokenResponse.ok) throw new Error(`master admin login refused: ${tokenResponse.status} ${await tokenResponse.text()}`);
  const headers = { authorization: `Bearer ${((await tokenResponse.json()) as { access_token: string }).access_token}`, 'content-type': 'application/json' };
  const clientsUrl = `${keycloak.url}/admin/realms/media/clients`;
  const [client] = (await (await fetch(`${clientsUrl}?clientId=${keycloak.clientId}`, { headers })).json()) as Array<{
    id: string;
    redirectUris: string[];
    attributes: Record<string, string>;
  }>;
  const callback = `${serviceUrl}/api/v1/auth/oidc/callback`;
  if (client.redirectUris.includes(callback)) return;
  client.redirectUris.push(callback);
  client.attributes['post.logout.redirect.uris'] = [client.attributes['post.logout.redirect.uris'], `${serviceUrl}/*`].filter(Boolean).join('##');
  const updated = await fetch(`${clientsUrl}/${client.id}`, { method: 'PUT', headers, body: JSON.stringify(client) });
  if (updated.status !== 204) throw new Error(`updating the realm's client answered ${updated.status}: ${await updated.text()}`);
}
