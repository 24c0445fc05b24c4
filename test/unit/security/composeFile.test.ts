import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { ConfigError, loadConfig, type Env } from '../../../lib/config';
import { SHIPPED_EXAMPLE_SECRETS } from './shippedExamples';

const root = path.resolve(__dirname, '../../..');
const composeText = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const debugText = fs.readFileSync(path.join(root, 'docker-compose.debug.yml'), 'utf8');

/** Every secret the compose file needs: none may have a default, so a known one can never run. */
const COMPOSE_SECRETS = ['SECRET_KEY', 'OIDC_CLIENT_SECRET', 'ADMIN_PASSWORD', 'KEYCLOAK_ADMIN_PASSWORD', 'POSTGRES_PASSWORD', 'TEMPORAL_DB_PASSWORD', 'QDRANT_API_KEY', 'PIPELINE_TOKEN'];
/** Those of them the app's own environment hands to loadConfig. */
const APP_SECRETS = ['SECRET_KEY', 'OIDC_CLIENT_SECRET', 'ADMIN_PASSWORD', 'QDRANT_API_KEY', 'PIPELINE_TOKEN'];

type Port = string | number | { host_ip?: string; published?: string | number; target?: number };
interface Service {
  environment?: Record<string, string | number | boolean | null>;
  ports?: Port[];
}
interface ComposeFile {
  services: Record<string, Service>;
}

const compose = parse(composeText, { merge: true }) as ComposeFile;
const debug = parse(debugText, { merge: true }) as ComposeFile;

/** `${NAME}`, `${NAME-x}`, `${NAME:-x}`, `${NAME?x}`, `${NAME:?x}` and the `$$` escape, as compose reads them. */
const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g;

/** Compose's interpolation of one value: a missing required variable stops it, as `docker compose up` stops. */
function interpolate(value: string, vars: Env): string {
  return value.replace(REFERENCE, (_match, name: string | undefined, colon: string | undefined, operator: string | undefined, argument: string | undefined) => {
    if (name === undefined) return '$';
    const given = vars[name];
    const missing = given === undefined || (colon === ':' && given === '');
    if (operator === '?' && missing) throw new Error(`required variable ${name} is missing a value: ${argument}`);
    if (operator === '-' && missing) return argument ?? '';
    return given ?? '';
  });
}

/** Every `${…}` reference in a text: its variable and its form (`:?`, `-`, …, or '' for none). */
function references(text: string): Array<{ name: string; form: string }> {
  return [...text.matchAll(REFERENCE)].flatMap((match) => (match[1] ? [{ name: match[1], form: `${match[2] ?? ''}${match[3] ?? ''}` }] : []));
}

/** A service's environment after interpolation with `vars`. */
function serviceEnv(service: Service, vars: Env): Env {
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value ?? ''), vars)]));
}

/** The host address a port mapping listens on ('' for all interfaces), after interpolation with `vars`. */
function hostAddress(port: Port, vars: Env): string {
  if (typeof port === 'object') return port.host_ip ?? '';
  const parts = interpolate(String(port), vars).split(':');
  return parts.length === 3 ? parts[0] : '';
}

const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** The variables a fresh run of scripts/compose-secrets.sh writes, read as compose reads `.env`. */
function generatedSecrets(): { vars: Env; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-secrets-'));
  scratchDirs.push(dir);
  const file = path.join(dir, '.env');
  execFileSync('sh', [path.join(root, 'scripts', 'compose-secrets.sh'), file], { stdio: 'pipe' });
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return { vars: Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])), file };
}

const secrets = generatedSecrets().vars;
const appEnv = (vars: Env) => serviceEnv(compose.services.api, vars);

it('requires every secret, with no default anywhere in the compose files', () => {
  for (const name of COMPOSE_SECRETS) {
    const uses = references(composeText).filter((reference) => reference.name === name);
    expect(uses.length).toBeGreaterThan(0);
    expect(uses.map((reference) => `${name}${reference.form}`)).toEqual(uses.map(() => `${name}:?`));
  }
  expect(references(debugText)).toEqual([]);
  expect(composeText).not.toMatch(/change-me/i);
  // A secret-looking setting of any service is a required variable, never a literal (S3_* are the storage's own, empty by default).
  for (const [serviceName, service] of Object.entries(compose.services)) {
    for (const [name, value] of Object.entries(service.environment ?? {})) {
      if (!/PASSWORD|PWD|SECRET|API_KEY|TOKEN|DATABASE_URL/.test(name) || name.startsWith('S3_')) continue;
      expect({ service: serviceName, name, required: references(String(value)).some((reference) => reference.form === ':?') }).toEqual({ service: serviceName, name, required: true });
    }
  }
});

it('publishes no port on all interfaces but the API (Keycloak on KEYCLOAK_BIND, 127.0.0.1 unless set)', () => {
  const open = Object.entries(compose.services).flatMap(([name, service]) =>
    (service.ports ?? []).filter((port) => !['127.0.0.1', '::1'].includes(hostAddress(port, {}))).map((port) => `${name} ${String(port)}`),
  );
  expect(open).toEqual(['api 8080:8080']);
  expect(compose.services.keycloak.ports).toEqual(['${KEYCLOAK_BIND:-127.0.0.1}:8180:8180']);
  for (const name of ['postgres', 'temporal-db', 'temporal', 'temporal-ui', 'qdrant']) expect(compose.services[name].ports ?? []).toEqual([]);
});

it('publishes Postgres, Temporal, its UI and Qdrant on 127.0.0.1 only, and only with the debug file', () => {
  const debugPorts = Object.entries(debug.services).flatMap(([name, service]) => (service.ports ?? []).map((port) => ({ name, host: hostAddress(port, {}) })));
  expect(debugPorts.map((port) => port.name).sort()).toEqual(['postgres', 'qdrant', 'temporal', 'temporal-ui']);
  for (const port of debugPorts) expect(port).toEqual({ name: port.name, host: '127.0.0.1' });
});

it('turns logins on unless DISABLE_AUTH says otherwise, with the Keycloak service running by default', () => {
  expect(compose.services.api.environment?.DISABLE_AUTH).toBe('${DISABLE_AUTH:-false}');
  const config = loadConfig(appEnv(secrets));
  expect(config.disableAuth).toBe(false);
  expect(config.oidc).toEqual({ issuer: 'http://keycloak:8180/realms/media', clientId: 'media-dataset-service', clientSecret: secrets.OIDC_CLIENT_SECRET });
  expect(compose.services.keycloak).not.toHaveProperty('profiles');
});

it('starts with the secrets scripts/compose-secrets.sh writes, which loadConfig accepts', () => {
  const { vars, file } = generatedSecrets();
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  const required = [...new Set(references(composeText).filter((reference) => reference.form === ':?').map((reference) => reference.name))];
  expect(Object.keys(vars).sort()).toEqual([...required].sort());
  for (const name of required) expect(vars[name]?.length).toBeGreaterThanOrEqual(name === 'SECRET_KEY' ? 32 : 24);
  // Fresh values every run, and no two alike.
  expect(new Set([...Object.values(vars), ...Object.values(secrets)]).size).toBe(2 * required.length);
  for (const service of ['api', 'worker']) {
    const config = loadConfig(serviceEnv(compose.services[service], vars));
    expect(config.qdrant).toEqual({ url: 'http://qdrant:6333', apiKey: vars.QDRANT_API_KEY, quantization: 'int8' });
    expect(config.database.url).toBe(`postgres://media:${vars.POSTGRES_PASSWORD}@postgres:5432/media_dataset`);
    expect([config.secretKey, config.admin.password, config.pipeline.token]).toEqual([vars.SECRET_KEY, vars.ADMIN_PASSWORD, vars.PIPELINE_TOKEN]);
  }
});

it('refuses to overwrite an existing .env with new secrets', () => {
  const { file } = generatedSecrets();
  const before = fs.readFileSync(file, 'utf8');
  const again = spawnSync('sh', [path.join(root, 'scripts', 'compose-secrets.sh'), file], { encoding: 'utf8' });
  expect(again.status).not.toBe(0);
  expect(again.stderr).toContain('not overwriting');
  expect(fs.readFileSync(file, 'utf8')).toBe(before);
});

it('refuses every example value this project has shipped, in each secret the app reads', () => {
  for (const name of APP_SECRETS) {
    for (const value of SHIPPED_EXAMPLE_SECRETS) {
      let error: unknown;
      try {
        loadConfig(appEnv({ ...secrets, [name]: value }));
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(`${name} (value not shown)`);
    }
  }
});

it('refuses an empty or missing secret before anything starts, as compose stops on a required variable', () => {
  const everyEnvironment = (vars: Env) => Object.values(compose.services).map((service) => serviceEnv(service, vars));
  expect(() => everyEnvironment(secrets)).not.toThrow();
  for (const name of COMPOSE_SECRETS) {
    expect(() => everyEnvironment({ ...secrets, [name]: '' })).toThrow(`required variable ${name} is missing a value`);
    const { [name]: _left, ...others } = secrets;
    expect(() => everyEnvironment(others)).toThrow(`required variable ${name} is missing a value`);
  }
});

it('loads RUN_MODE=CLOUD with OIDC_ISSUER set empty, as the header says', () => {
  expect(composeText).toContain('RUN_MODE=CLOUD OIDC_ISSUER=');
  const config = loadConfig(appEnv({ ...secrets, RUN_MODE: 'CLOUD', OIDC_ISSUER: '' }));
  expect([config.runMode, config.disableAuth, config.oidc]).toEqual(['CLOUD', false, undefined]);
  expect(() => loadConfig(appEnv({ ...secrets, RUN_MODE: 'CLOUD' }))).toThrow('OIDC_ISSUER is only used with RUN_MODE=ONPREM');
});
