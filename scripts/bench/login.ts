/**
 * bench:login — what the identity provider costs a user: a whole OIDC login through Keycloak (the
 * service's redirect, Keycloak's form and password check, the service's callback: code → session),
 * the callback alone, and an authorised request (session lookup + access policy) against the same
 * request with authentication off, p50/p95 each. Also times Keycloak's start. `-- --logins N --requests N`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startApiServer } from '../../api/server';
import { loadConfig } from '../../lib/config';
import { startKeycloak } from '../../lib/embedded/keycloak';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { startTemporalDevServer } from '../../lib/embedded/temporal';
import { createLogger } from '../../lib/logger';
import { createDataset } from '../../db/repositories/datasets';
import { Workspace } from '../../db/models';
import { createDb } from '../../db/connection';
import { createCookieJar, loginFormAction } from '../../test/support/cookieJar';
import { benchMachine, freePort, percentile, say, writeReport, runBench } from './common';

const argument = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
};

const summary = (millis: number[]) => {
  const sorted = [...millis].sort((a, b) => a - b);
  return { n: sorted.length, p50_ms: +percentile(sorted, 0.5).toFixed(2), p95_ms: +percentile(sorted, 0.95).toFixed(2), max_ms: +sorted.at(-1)!.toFixed(2) };
};

async function timed<T>(call: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await call();
  return [result, performance.now() - started];
}

async function main(): Promise<void> {
  const logins = argument('logins', 50);
  const requests = argument('requests', 500);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-login-'));
  const stops: Array<() => Promise<void>> = [];
  try {
    const apiPort = freePort();
    const serviceUrl = `http://127.0.0.1:${apiPort}`;
    const admin = { email: 'admin@localhost.localdomain', password: 'bench-admin-password' };
    const clientSecret = 'bench-client-secret-0123456789';
    const keycloakPort = freePort();
    const keycloakStarted = performance.now();
    const keycloakStarting = startKeycloak({ dataDir: scratch, port: keycloakPort, url: `http://127.0.0.1:${keycloakPort}`, serviceUrl, clientSecret, admin });
    const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
    stops.push(postgres.stop);
    const temporal = await startTemporalDevServer({ dataDir: scratch, port: freePort(), namespace: 'default' });
    stops.push(temporal.stop);
    const keycloak = await keycloakStarting;
    const keycloakSeconds = (performance.now() - keycloakStarted) / 1000;
    stops.push(keycloak.stop);
    say(`Keycloak served after ${keycloakSeconds.toFixed(1)} s`);

    const databaseUrl = await ensureDatabase(postgres.url, 'bench_login');
    const common = { LOG_LEVEL: 'silent', DATA_DIR: path.join(scratch, 'data'), DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporal.address, PIPELINE_PORT: '0', API_HOST: '127.0.0.1' };
    const withAuth = await startApiServer(
      loadConfig({ ...common, API_PORT: String(apiPort), DISABLE_AUTH: 'false', OIDC_ISSUER: keycloak.issuer, OIDC_CLIENT_SECRET: clientSecret, PUBLIC_URL: serviceUrl }),
      createLogger('bench-api', 'silent'),
    );
    stops.push(withAuth.close);
    const withoutAuth = await startApiServer(loadConfig({ ...common, API_PORT: '0' }), createLogger('bench-api', 'silent'));
    stops.push(withoutAuth.close);

    const login = async () => {
      const jar = createCookieJar();
      const [start, startMs] = await timed(() => jar.request(`${serviceUrl}/api/v1/auth/oidc/login`));
      const page = await jar.request(start.location!);
      const submitted = await jar.request(loginFormAction(page.body), { form: { username: admin.email, password: admin.password, credentialId: '' } });
      const [callback, callbackMs] = await timed(() => jar.request(submitted.location!));
      if (callback.status !== 302 || !jar.get(serviceUrl, 'SESSION')) throw new Error(`login failed: ${callback.status} ${callback.body}`);
      return { cookie: `SESSION=${jar.get(serviceUrl, 'SESSION')}`, startMs, callbackMs };
    };
    for (let i = 0; i < 5; i++) await login();
    const whole: number[] = [];
    const callbacks: number[] = [];
    const starts: number[] = [];
    let cookie = '';
    for (let i = 0; i < logins; i++) {
      const [result, ms] = await timed(login);
      whole.push(ms);
      callbacks.push(result.callbackMs);
      starts.push(result.startMs);
      cookie = result.cookie;
    }

    const db = createDb(databaseUrl, 2);
    const workspace = await Workspace.query(db).orderBy('created_at').first();
    const owner = await db('users').where({ email: admin.email }).first();
    const dataset = await createDataset(db, { name: 'bench', ownerId: owner.id, workspaceId: workspace!.id, status: 'READY' });
    await db.destroy();
    const requestTimes = async (url: string, headers: Record<string, string>) => {
      for (let i = 0; i < 20; i++) await fetch(url, { headers });
      const times: number[] = [];
      for (let i = 0; i < requests; i++) {
        const [response, ms] = await timed(() => fetch(url, { headers }));
        if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
        await response.arrayBuffer();
        times.push(ms);
      }
      return summary(times);
    };
    const path_ = `/api/v1/dataset/${dataset.id}`;
    const report = {
      date: new Date().toISOString(),
      machine: benchMachine(),
      keycloak: { version: '26.4.7', start_seconds: +keycloakSeconds.toFixed(1), note: 'kc.sh start-dev, distribution already built, new H2 database (realm imported)' },
      login_whole: { ...summary(whole), what: "the service's redirect, Keycloak's login page and password check, the callback (sequential, one fresh browser each)" },
      login_start: { ...summary(starts), what: 'GET /auth/oidc/login: state, nonce, PKCE, sealed cookie, redirect' },
      login_callback: { ...summary(callbacks), what: 'GET /auth/oidc/callback: code → tokens at Keycloak, ID token against the JWKS, user, session' },
      request_with_session: { ...(await requestTimes(`${serviceUrl}${path_}`, { cookie })), what: `GET ${path_.replace(dataset.id, '{id}')} with the SESSION cookie (session + policy)` },
      request_auth_disabled: {
        ...(await requestTimes(`http://127.0.0.1:${withoutAuth.port}${path_}`, {})),
        what: 'the same request on an API with DISABLE_AUTH=true (default admin, same policy query)',
      },
    };
    const rows = (['login_whole', 'login_start', 'login_callback', 'request_with_session', 'request_auth_disabled'] as const)
      .map((key) => `| ${key} | ${report[key].n} | ${report[key].p50_ms} | ${report[key].p95_ms} | ${report[key].what} |`)
      .join('\n');
    const markdown = `# bench:login, ${report.date.slice(0, 10)}\n\n${report.machine.cores} cores (${report.machine.cpu}), Node ${report.machine.node}. Keycloak ${report.keycloak.version} served ${report.keycloak.start_seconds} s after start (${report.keycloak.note}).\n\n| measure | n | p50 ms | p95 ms | what |\n|---|---|---|---|---|\n${rows}\n`;
    say(markdown);
    writeReport('login', 'login', report, markdown);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
