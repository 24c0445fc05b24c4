import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import supertest from 'supertest';
import { createApp } from '../../api/app';
import { buildApiDeps } from '../../api/server';
import { Workspace } from '../../db/models';
import { createUser } from '../../db/repositories/users';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { sdkToken } from '../support/sdkToken';
import { startTestApi, type TestApi } from '../support/testStack';

const password = 'correct horse battery';
const SECRET_KEY = 'test-secret-key-that-is-long-enough-123';

describe('CLOUD auth under attack: forged token times, a changed SECRET_KEY, password guessing', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({
      RUN_MODE: 'CLOUD',
      SECRET_KEY,
      LOGIN_MAX_FAILURES: '3',
      LOGIN_MAX_FAILURES_PER_IP: '6',
      LOGIN_FAILURE_WINDOW_SECONDS: '600',
      LOGIN_LOCKOUT_SECONDS: '300',
    });
    const workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    for (const email of ['alice@example.com', 'bob@example.com']) {
      await createUser(api.deps.db, { email, password, workspaceId, workspaceRole: 'editor' });
    }
  });
  afterAll(() => api.close());

  /** A fresh app on the same services: its own login throttle, optionally other settings. */
  const freshApp = (config = api.deps.config) => supertest(createApp({ ...api.deps, config }).callback());
  const login = (request: ReturnType<typeof freshApp>, email: string, pass: string, forwardedFor?: string) => {
    const call = request.post('/api/v1/auth/login').send({ email, password: pass });
    return forwardedFor ? call.set('X-Forwarded-For', forwardedFor) : call;
  };

  async function credentials(request: ReturnType<typeof freshApp>, email: string) {
    const session = await login(request, email, password).expect(200);
    const cookie = (session.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('SESSION='))!.split(';')[0];
    return (await request.get('/api/v1/api_credentials').set('Cookie', cookie).expect(200)).body as { api_key: string; api_secret: string };
  }

  it('refuses with 401 a token issued in the future (iat = 2^53, exp = iat + 1) or beyond the clock skew', async () => {
    const request = freshApp();
    const { api_key, api_secret } = await credentials(request, 'alice@example.com');
    const forever = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: api_key })
      .setSubject(api_key)
      .setIssuer('sdk')
      .setIssuedAt(2 ** 53)
      .setExpirationTime(2 ** 53 + 1)
      .sign(new TextEncoder().encode(api_secret));
    const refused = await request.get('/api/v1/datasets').set('Authorization', `Bearer ${forever}`).expect(401);
    expect(refused.body).toEqual({ detail: 'Token iat and exp must be whole seconds' });
    const tomorrow = await sdkToken(api_key, api_secret, { issuedAt: Math.floor(Date.now() / 1000) + 86_400, lifetimeSeconds: 60 });
    expect((await request.get('/api/v1/datasets').set('Authorization', `Bearer ${tomorrow}`).expect(401)).body).toEqual({
      detail: 'Token issued in the future',
    });
    await request.get('/api/v1/datasets').set('Authorization', `Bearer ${await sdkToken(api_key, api_secret)}`).expect(200);
  });

  it('answers 401, not 500, for API keys stored under a SECRET_KEY that has since changed', async () => {
    const { api_key, api_secret } = await credentials(freshApp(), 'bob@example.com');
    const rotated = await buildApiDeps(loadConfig({ ...api.env, SECRET_KEY: 'another-secret-key-that-is-long-enough-456' }), createLogger('rotated', 'silent'));
    try {
      const token = await sdkToken(api_key, api_secret);
      const refused = await supertest(createApp(rotated).callback()).get('/api/v1/datasets').set('Authorization', `Bearer ${token}`).expect(401);
      expect(refused.body).toEqual({ detail: 'API key is no longer valid: request new credentials' });
      expect(refused.headers['www-authenticate']).toBe('Bearer');
    } finally {
      await rotated.hub.close();
      await rotated.temporalConnection.close();
      await rotated.vectors.close();
      await rotated.db.destroy();
    }
  });

  it('locks an account out after repeated wrong passwords with 429, Retry-After and {detail}, even for the right password', async () => {
    const request = freshApp();
    for (let i = 0; i < 3; i++) {
      expect((await login(request, 'alice@example.com', `guess-${i}`).expect(401)).body).toEqual({ detail: 'Invalid email or password' });
    }
    for (const attempt of ['guess-3', password]) {
      const locked = await login(request, 'ALICE@example.com', attempt).expect(429);
      expect(locked.body).toEqual({ detail: expect.stringMatching(/^Too many failed logins: try again in \d+ s$/) });
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(300);
      expect(locked.headers['set-cookie']).toBeUndefined();
    }
    // Another account is not affected by alice's lock-out.
    await login(request, 'bob@example.com', password).expect(200);
  });

  it('treats an unknown email like a known one: the same 401s, then the same lock-out', async () => {
    const request = freshApp();
    for (let i = 0; i < 3; i++) {
      expect((await login(request, 'nobody@example.com', `guess-${i}`).expect(401)).body).toEqual({ detail: 'Invalid email or password' });
    }
    await login(request, 'nobody@example.com', 'guess-3').expect(429);
  });

  it('locks out a client address guessing across accounts, and X-Forwarded-For does not hide it unless TRUST_PROXY is on', async () => {
    const request = freshApp();
    for (let i = 0; i < 6; i++) await login(request, `user${i}@example.com`, 'guess', `203.0.113.${i}`).expect(401);
    const locked = await login(request, 'bob@example.com', password, '198.51.100.1').expect(429);
    expect(locked.headers['retry-after']).toBeDefined();

    // Behind a trusted proxy the forwarded address is the client's: spread over six addresses, nobody is locked.
    const proxied = freshApp({ ...api.deps.config, trustProxy: true });
    for (let i = 0; i < 6; i++) await login(proxied, `user${i}@example.com`, 'guess', `203.0.113.${i}`).expect(401);
    await login(proxied, 'bob@example.com', password, '198.51.100.1').expect(200);
  });

  it('answers any forged or garbled bearer token with 401 {detail}, never a 5xx', async () => {
    const request = freshApp();
    const { api_key, api_secret } = await credentials(request, 'bob@example.com');
    const base64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
    const header = fc.record(
      {
        alg: fc.oneof(fc.constantFrom('HS256', 'none', 'RS256', 'HS512'), fc.string()),
        kid: fc.oneof(fc.constant(api_key), fc.string({ unit: 'binary' }), fc.constantFrom('\u0000', 'ak_\u0000', `${api_key}\u0000`)),
        typ: fc.string(),
      },
      { requiredKeys: [] },
    );
    const claims = fc.record(
      { sub: fc.oneof(fc.constant(api_key), fc.string()), iss: fc.constantFrom('sdk', 'other'), iat: fc.oneof(fc.integer(), fc.double(), fc.string()), exp: fc.oneof(fc.integer(), fc.double(), fc.constant(2 ** 60)) },
      { requiredKeys: [] },
    );
    // Signed with the real secret, so only the header and claims can be wrong.
    const signed = fc.tuple(header, claims).map(([protectedHeader, payload]) => {
      const body = `${base64url(protectedHeader)}.${base64url(payload)}`;
      return `${body}.${createHmac('sha256', api_secret).update(body).digest('base64url')}`;
    });
    const token = fc.oneof(fc.string({ unit: 'grapheme-ascii', minLength: 1 }).map((text) => text.replace(/\s/g, 'x')), signed);
    await fc.assert(
      fc.asyncProperty(token, async (bearer) => {
        const response = await request.get('/api/v1/datasets').set('Authorization', `Bearer ${bearer}`);
        expect({ status: response.status, body: response.body }).toEqual({ status: 401, body: { detail: expect.any(String) } });
      }),
      { numRuns: 150 },
    );
  });
});
