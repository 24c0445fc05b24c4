import path from 'node:path';
import { ConfigError, loadConfig, pipelineTriggerAccess } from '../../lib/config';

describe('loadConfig', () => {
  it('defaults to ONPREM with auth disabled and the embedded services', () => {
    const config = loadConfig({});
    expect(config.runMode).toBe('ONPREM');
    expect(config.disableAuth).toBe(true);
    expect(config.addMediaEnabled).toBe(true);
    expect(config.api.port).toBe(8080);
    expect(config.dataDir).toBe(path.resolve('.data'));
    expect(config.database.url).toBeUndefined();
    expect(config.temporal.address).toBeUndefined();
    expect(config.temporal.embeddedUiPort).toBe(8233);
    expect(config.workerQueues).toBe('all');
    expect(config.indexing).toMatchObject({ chunkSize: 256, chunkConcurrency: 4 });
  });

  it('enables auth by default in CLOUD mode and requires a secret key there', () => {
    expect(() => loadConfig({ RUN_MODE: 'CLOUD' })).toThrow('SECRET_KEY is required when RUN_MODE=CLOUD');
    const config = loadConfig({ RUN_MODE: 'CLOUD', SECRET_KEY: 'k'.repeat(32) });
    expect(config.disableAuth).toBe(false);
  });

  it('uses an OIDC provider on ONPREM with auth only, wants its client secret, and defaults the embedded Keycloak', () => {
    const oidc = { OIDC_ISSUER: 'http://idp.example/realms/media/', OIDC_CLIENT_SECRET: 'oidc-client-secret-0123' };
    expect(loadConfig({ DISABLE_AUTH: 'false', ...oidc }).oidc).toEqual({
      issuer: 'http://idp.example/realms/media',
      clientId: 'media-dataset-service',
      clientSecret: 'oidc-client-secret-0123',
    });
    expect(loadConfig(oidc).oidc).toBeUndefined();
    expect(() => loadConfig({ DISABLE_AUTH: 'false', OIDC_ISSUER: oidc.OIDC_ISSUER })).toThrow('OIDC_CLIENT_SECRET is required with OIDC_ISSUER');
    expect(() => loadConfig({ RUN_MODE: 'CLOUD', SECRET_KEY: 'k'.repeat(32), ...oidc })).toThrow('OIDC_ISSUER is only used with RUN_MODE=ONPREM');
    expect(loadConfig({}).keycloak).toEqual({ port: 8180, url: 'http://localhost:8180', clientId: 'media-dataset-service', clientSecret: undefined });
  });

  it('refuses DISABLE_AUTH=true in CLOUD mode', () => {
    expect(() => loadConfig({ RUN_MODE: 'CLOUD', SECRET_KEY: 'k'.repeat(32), DISABLE_AUTH: 'true' })).toThrow(
      'DISABLE_AUTH=true is only allowed with RUN_MODE=ONPREM',
    );
  });

  it.each([
    ['API_PORT', 'abc', 'Invalid configuration: API_PORT="abc": expected a port number'],
    ['API_PORT', '70000', 'Invalid configuration: API_PORT="70000": expected a port number 0-65535'],
    ['RUN_MODE', 'LOCAL', 'Invalid configuration: RUN_MODE="LOCAL": expected CLOUD or ONPREM'],
    ['DISABLE_AUTH', 'maybe', 'Invalid configuration: DISABLE_AUTH="maybe": expected true or false'],
    ['ADD_MEDIA_ENABLED', 'on', 'Invalid configuration: ADD_MEDIA_ENABLED="on": expected true or false'],
    ['DATABASE_URL', 'not a url', 'Invalid configuration: DATABASE_URL="not a url": expected a URL'],
    ['SECRET_KEY', 'short', 'Invalid configuration: SECRET_KEY (value not shown): expected at least 32 characters'],
    ['TRUST_PROXY', 'sometimes', 'Invalid configuration: TRUST_PROXY="sometimes": expected true or false'],
    ['PIPELINE_TOKEN', 'short', 'Invalid configuration: PIPELINE_TOKEN (value not shown): expected at least 16 characters'],
    ['ARCHIVE_MAX_RATIO', '0.5', 'Invalid configuration: ARCHIVE_MAX_RATIO="0.5": expected a ratio of at least 1'],
    ['MAX_FORM_FIELDS', 'many', 'Invalid configuration: MAX_FORM_FIELDS="many": expected a whole number of at least 1'],
    ['UPLOAD_IDLE_TIMEOUT_SECONDS', '-1', 'Invalid configuration: UPLOAD_IDLE_TIMEOUT_SECONDS="-1": expected a positive number of seconds'],
    ['LOGIN_MAX_FAILURES', '0', 'Invalid configuration: LOGIN_MAX_FAILURES="0": expected a whole number of at least 1'],
    ['INDEX_CHUNK_SIZE', '0', 'Invalid configuration: INDEX_CHUNK_SIZE="0": expected a whole number of files, 1-100000'],
    ['INDEX_CHUNK_CONCURRENCY', 'some', 'Invalid configuration: INDEX_CHUNK_CONCURRENCY="some": expected a whole number of chunks, 1-1000'],
    ['DECODE_CONCURRENCY', '2.5', 'Invalid configuration: DECODE_CONCURRENCY="2.5": expected a whole number of files, 1-64'],
    ['WORKER_QUEUES', 'gpu', 'Invalid configuration: WORKER_QUEUES="gpu": expected all, workflows or inference'],
    ['WORKER_PROCESSES', '0', 'Invalid configuration: WORKER_PROCESSES="0": expected a whole number of worker processes, 1-64'],
  ])('names the bad variable %s=%s in one line', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('reads booleans and external service addresses', () => {
    const config = loadConfig({
      ADD_MEDIA_ENABLED: 'false',
      DISABLE_AUTH: 'false',
      DATABASE_URL: 'postgres://u:p@db:5432/media',
      TEMPORAL_ADDRESS: 'temporal:7233',
      QDRANT_URL: 'http://qdrant:6333',
    });
    expect(config.addMediaEnabled).toBe(false);
    expect(config.disableAuth).toBe(false);
    expect(config.database.url).toBe('postgres://u:p@db:5432/media');
    expect(config.temporal.address).toBe('temporal:7233');
    expect(config.qdrant.url).toBe('http://qdrant:6333');
  });

  it('quantizes Qdrant collections to int8 unless QDRANT_QUANTIZATION=none, and refuses other values', () => {
    expect(loadConfig({}).qdrant.quantization).toBe('int8');
    expect(loadConfig({ QDRANT_QUANTIZATION: 'none' }).qdrant.quantization).toBe('none');
    expect(() => loadConfig({ QDRANT_QUANTIZATION: 'f16' })).toThrow('Invalid configuration: QDRANT_QUANTIZATION="f16": expected int8 or none');
  });

  it('has safe defaults for request, upload, archive and login limits', () => {
    const config = loadConfig({});
    expect(config.trustProxy).toBe(false);
    expect(config.uploads).toMatchObject({ maxFields: 50, maxFieldBytes: 64 * 1024, idleTimeoutMs: 60_000, staleAfterMs: 24 * 3600_000 });
    expect(config.archives).toMatchObject({ maxEntryBytes: 2048 * 1024 * 1024, maxTotalBytes: 10_240 * 1024 * 1024, maxRatio: 100, ratioFloorBytes: 16 * 1024 * 1024 });
    expect(config.auth.login).toEqual({ maxFailuresPerAccount: 5, maxFailuresPerIp: 50, windowMs: 900_000, lockoutMs: 60_000 });
  });

  it('gives API keys a 90-day lifetime and 20 live keys per user by default; API_KEY_TTL_DAYS=0 means they never expire', () => {
    expect(loadConfig({}).auth.apiKeys).toEqual({ lifetimeDays: 90, maxPerUser: 20 });
    expect(loadConfig({ API_KEY_TTL_DAYS: '0', API_KEY_MAX_PER_USER: '3' }).auth.apiKeys).toEqual({ lifetimeDays: null, maxPerUser: 3 });
    expect(loadConfig({ API_KEY_TTL_DAYS: '0.5' }).auth.apiKeys.lifetimeDays).toBe(0.5);
    for (const [name, value, message] of [
      ['API_KEY_TTL_DAYS', '-1', 'expected a number of days 0-36500 (0: keys never expire)'],
      ['API_KEY_TTL_DAYS', 'forever', 'expected a number of days 0-36500 (0: keys never expire)'],
      ['API_KEY_TTL_DAYS', '1e9', 'expected a number of days 0-36500 (0: keys never expire)'],
      ['API_KEY_MAX_PER_USER', '0', 'expected a whole number of at least 1'],
      ['API_KEY_MAX_PER_USER', '2.5', 'expected a whole number of at least 1'],
    ]) {
      expect(() => loadConfig({ [name]: value })).toThrow(`Invalid configuration: ${name}=${JSON.stringify(value)}: ${message}`);
    }
  });

  it('keeps objects under DATA_DIR by default, or in the bucket and prefix OBJECT_STORE_URL names', () => {
    expect(loadConfig({}).objectStore).toBeUndefined();
    expect(loadConfig({ OBJECT_STORE_URL: 's3://media-objects' }).objectStore).toEqual({ bucket: 'media-objects', key: '' });
    expect(loadConfig({ OBJECT_STORE_URL: 's3://media-objects/prod/' }).objectStore).toEqual({ bucket: 'media-objects', key: 'prod/' });
    for (const value of ['media-objects', 'https://s3.example.com/media', 's3://', 's3://A_B']) {
      expect(() => loadConfig({ OBJECT_STORE_URL: value })).toThrow(`Invalid configuration: OBJECT_STORE_URL=${JSON.stringify(value)}: expected s3://bucket or s3://bucket/prefix`);
    }
  });

  it('bounds waits for Postgres and Temporal by default (3 s to connect, 5 s for a pooled connection, 15 s per query, 5 s per Temporal call)', () => {
    const config = loadConfig({});
    expect(config.database).toMatchObject({ connectTimeoutMs: 3000, acquireTimeoutMs: 5000, queryTimeoutMs: 15_000 });
    expect(config.temporal.rpcTimeoutMs).toBe(5000);
    const tuned = loadConfig({ DATABASE_CONNECT_TIMEOUT_SECONDS: '0.5', DATABASE_ACQUIRE_TIMEOUT_SECONDS: '2', DATABASE_QUERY_TIMEOUT_SECONDS: '3', TEMPORAL_RPC_TIMEOUT_SECONDS: '10' });
    expect([tuned.database.connectTimeoutMs, tuned.database.acquireTimeoutMs, tuned.database.queryTimeoutMs, tuned.temporal.rpcTimeoutMs]).toEqual([500, 2000, 3000, 10_000]);
    for (const name of ['DATABASE_CONNECT_TIMEOUT_SECONDS', 'DATABASE_ACQUIRE_TIMEOUT_SECONDS', 'DATABASE_QUERY_TIMEOUT_SECONDS', 'TEMPORAL_RPC_TIMEOUT_SECONDS']) {
      for (const value of ['0', '-1', '601', 'soon']) {
        expect(() => loadConfig({ [name]: value })).toThrow(
          `Invalid configuration: ${name}=${JSON.stringify(value)}: expected a number of seconds, more than 0 and at most 600`,
        );
      }
    }
  });

  it('serves the pipeline trigger on ONPREM only, and with auth only behind PIPELINE_TOKEN', () => {
    const token = 't'.repeat(24);
    expect(pipelineTriggerAccess(loadConfig({}))).toEqual({ serve: true });
    expect(pipelineTriggerAccess(loadConfig({ PIPELINE_TOKEN: token }))).toEqual({ serve: true, token });
    expect(pipelineTriggerAccess(loadConfig({ DISABLE_AUTH: 'false' }))).toMatchObject({ serve: false, reason: expect.stringContaining('PIPELINE_TOKEN') });
    expect(pipelineTriggerAccess(loadConfig({ DISABLE_AUTH: 'false', PIPELINE_TOKEN: token }))).toEqual({ serve: true, token });
    const cloud = { RUN_MODE: 'CLOUD', SECRET_KEY: 'k'.repeat(32), PIPELINE_TOKEN: token };
    expect(pipelineTriggerAccess(loadConfig(cloud))).toMatchObject({ serve: false, reason: expect.stringContaining('CLOUD') });
  });

  it('links the Temporal UI from TEMPORAL_UI_URL, else the embedded one on the public host, else nowhere', () => {
    expect(loadConfig({}).temporal.uiUrl).toBe('http://localhost:8233');
    expect(loadConfig({ PUBLIC_URL: 'https://media.example.org', TEMPORAL_UI_PORT: '9233' }).temporal.uiUrl).toBe('http://media.example.org:9233');
    expect(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233' }).temporal.uiUrl).toBeNull();
    expect(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_UI_URL: 'https://temporal.example.org/' }).temporal.uiUrl).toBe('https://temporal.example.org');
  });
});
