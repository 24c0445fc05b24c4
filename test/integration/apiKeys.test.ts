import http from 'node:http';
import type { AddressInfo } from 'node:net';
import supertest from 'supertest';
import { createApp } from '../../api/app';
import { Workspace } from '../../db/models';
import { createUser } from '../../db/repositories/users';
import type { Config } from '../../lib/config';
import { eventually } from '../support/media';
import { sdkToken } from '../support/sdkToken';
import { openStream, type Stream } from '../support/sse';
import { startTestApi, type TestApi } from '../support/testStack';

const password = 'correct horse battery';
const DAY_MS = 86_400_000;

type Request = ReturnType<typeof supertest>;
interface Credentials {
  api_key: string;
  api_secret: string;
  message: string;
  expires_at: string | null;
}

describe('API keys: expiry, listing, revocation, the per-user limit, logout, and streams that end with their credentials', () => {
  let api: TestApi;
  let workspaceId: string;
  const servers: http.Server[] = [];
  let userCount = 0;

  beforeAll(async () => {
    api = await startTestApi({ RUN_MODE: 'CLOUD', SECRET_KEY: 'test-secret-key-that-is-long-enough-123', API_KEY_MAX_PER_USER: '3' });
    workspaceId = (await Workspace.query(api.deps.db).first())!.id;
  });
  afterAll(async () => {
    for (const server of servers) {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
    }
    await api.close();
  });

  /** A user of its own for each test, so the per-user limit and revocations never leak between tests. */
  async function newUser(): Promise<string> {
    const email = `user${++userCount}@example.com`;
    await createUser(api.deps.db, { email, password, workspaceId, workspaceRole: 'editor' });
    return email;
  }

  /** The app on the same services with other settings (each with its own login throttle). */
  const appWith = (change: (config: Config) => Config = (config) => config) =>
    supertest(createApp({ ...api.deps, config: change(api.deps.config) }).callback());

  const withKeys = (keys: Partial<Config['auth']['apiKeys']>) => (config: Config): Config => ({
    ...config,
    auth: { ...config.auth, apiKeys: { ...config.auth.apiKeys, ...keys } },
  });

  async function login(request: Request, email: string): Promise<string> {
    const response = await request.post('/api/v1/auth/login').send({ email, password }).expect(200);
    return (response.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('SESSION='))!.split(';')[0];
  }

  async function mint(request: Request, cookie: string, query: Record<string, string | number> = {}): Promise<Credentials> {
    return (await request.get('/api/v1/api_credentials').query(query).set('Cookie', cookie).expect(200)).body;
  }

  const bearer = async ({ api_key, api_secret }: Credentials, lifetimeSeconds = 600) =>
    `Bearer ${await sdkToken(api_key, api_secret, { lifetimeSeconds })}`;

  /** A real server (SSE needs a socket) on the same services, with other settings if given. */
  async function listen(change: (config: Config) => Config = (config) => config): Promise<number> {
    const server = http.createServer(createApp({ ...api.deps, config: change(api.deps.config) }).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  }

  /** Waits, within a bound, for the server to end the stream; returns its last event. */
  async function endOf(stream: Stream, withinMs: number): Promise<{ event: string; data: unknown }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the stream was still open after ${withinMs} ms`)), withinMs);
    });
    try {
      await Promise.race([stream.ended, timeout]);
    } finally {
      clearTimeout(timer);
    }
    return stream.events[stream.events.length - 1];
  }

  const closesBecause = (reason: string) => ({
    event: 'error',
    data: { detail: `${reason}: the stream is closed; reconnect with valid credentials`, closed: true },
  });

  describe('minting with an expiry', () => {
    it('gives a new key the server lifetime (90 days) or the asked one, and keeps the spec fields', async () => {
      const cookie = await login(api.request, await newUser());
      const before = Date.now();
      const standard = await mint(api.request, cookie);
      expect(Object.keys(standard).sort()).toEqual(['api_key', 'api_secret', 'expires_at', 'message']);
      expect(new Date(standard.expires_at!).getTime()).toBeGreaterThanOrEqual(before + 90 * DAY_MS - 1000);
      expect(new Date(standard.expires_at!).getTime()).toBeLessThanOrEqual(Date.now() + 90 * DAY_MS + 1000);

      const weekly = await mint(api.request, cookie, { expires_in_days: 7 });
      expect(Math.abs(new Date(weekly.expires_at!).getTime() - (Date.now() + 7 * DAY_MS))).toBeLessThan(60_000);
      await api.request.get('/api/v1/datasets').set('Authorization', await bearer(weekly)).expect(200);
    });

    it('refuses a malformed or too long expires_in_days with 422 {detail}, minting nothing', async () => {
      const email = await newUser();
      const cookie = await login(api.request, email);
      for (const value of ['0', '-3', '1.5', 'soon', '3651', '']) {
        const refused = await api.request.get('/api/v1/api_credentials').query({ expires_in_days: value }).set('Cookie', cookie).expect(422);
        expect(refused.body).toEqual({ detail: 'query.expires_in_days: expires_in_days must be a whole number of days from 1 to 3650' });
      }
      // Longer than this server's API_KEY_TTL_DAYS (90): well-formed, but not allowed here.
      const tooLong = await api.request.get('/api/v1/api_credentials').query({ expires_in_days: 91 }).set('Cookie', cookie).expect(422);
      expect(tooLong.body).toEqual({ detail: 'query.expires_in_days: keys on this server live at most 90 days' });
      expect((await api.request.get('/api/v1/api_credentials/keys').set('Cookie', cookie).expect(200)).body.total).toBe(0);
    });

    it('mints keys that never expire when API_KEY_TTL_DAYS is 0, unless the caller asks for an expiry', async () => {
      const request = appWith(withKeys({ lifetimeDays: null }));
      const cookie = await login(request, await newUser());
      expect((await mint(request, cookie)).expires_at).toBeNull();
      expect(new Date((await mint(request, cookie, { expires_in_days: 3650 })).expires_at!).getTime()).toBeGreaterThan(Date.now() + 3649 * DAY_MS);
    });

    it('refuses the tokens of an expired key with 401 "API key expired"', async () => {
      // Keys of this app live two seconds.
      const request = appWith(withKeys({ lifetimeDays: 2 / 86_400 }));
      const credentials = await mint(request, await login(request, await newUser()));
      const token = await bearer(credentials);
      await request.get('/api/v1/datasets').set('Authorization', token).expect(200);
      const refused = await eventually(
        () => request.get('/api/v1/datasets').set('Authorization', token).then((r) => r),
        (response) => response.status !== 200,
        10_000,
        'the key to expire',
      );
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 401, body: { detail: 'API key expired' } });
      expect(refused.headers['www-authenticate']).toBe('Bearer');
    });
  });

  describe('GET /api_credentials/keys', () => {
    it("lists the caller's keys newest first, with use and expiry times and never a secret, by session or by token", async () => {
      const email = await newUser();
      const cookie = await login(api.request, email);
      const first = await mint(api.request, cookie, { expires_in_days: 30 });
      const second = await mint(api.request, cookie);
      const token = await bearer(first);
      await api.request.get('/api/v1/datasets').set('Authorization', token).expect(200);

      const bySession = await api.request.get('/api/v1/api_credentials/keys').set('Cookie', cookie).expect(200);
      expect(bySession.headers['cache-control']).toBe('no-store');
      const byToken = await api.request.get('/api/v1/api_credentials/keys').set('Authorization', token).expect(200);
      expect(byToken.body).toEqual(bySession.body);
      const { keys, total, has_more } = bySession.body;
      expect({ total, has_more }).toEqual({ total: 2, has_more: false });
      expect(keys.map((k: { api_key: string }) => k.api_key)).toEqual([second.api_key, first.api_key]);
      for (const key of keys) {
        expect(Object.keys(key).sort()).toEqual(['api_key', 'created_at', 'expires_at', 'last_used_at', 'revoked_at', 'status']);
        expect(key.created_at).toMatch(/Z$/);
        expect(key).toMatchObject({ revoked_at: null, status: 'active' });
      }
      expect(keys[1].expires_at).toBe(first.expires_at);
      expect(keys[0].expires_at).toBe(second.expires_at);
      // The first key was used (by the requests above); the second never.
      expect(Date.now() - new Date(keys[1].last_used_at).getTime()).toBeLessThan(60_000);
      expect(keys[0].last_used_at).toBeNull();
      const text = JSON.stringify(bySession.body);
      for (const secret of [first.api_secret, second.api_secret]) expect(text).not.toContain(secret);
    });

    it('pages with limit and offset, filters live keys with active_only, and refuses bad input with 422 {detail}', async () => {
      const cookie = await login(api.request, await newUser());
      const keys = [await mint(api.request, cookie), await mint(api.request, cookie), await mint(api.request, cookie)];
      await api.request.delete(`/api/v1/api_credentials/keys/${keys[0].api_key}`).set('Cookie', cookie).expect(200);

      const page = (query: Record<string, string | number>) => api.request.get('/api/v1/api_credentials/keys').query(query).set('Cookie', cookie);
      const firstPage = (await page({ limit: 2 }).expect(200)).body;
      expect({ n: firstPage.keys.length, total: firstPage.total, has_more: firstPage.has_more }).toEqual({ n: 2, total: 3, has_more: true });
      const rest = (await page({ limit: 2, offset: 2 }).expect(200)).body;
      expect(rest.keys.map((k: { api_key: string; status: string }) => [k.api_key, k.status])).toEqual([[keys[0].api_key, 'revoked']]);
      expect(rest.has_more).toBe(false);
      const live = (await page({ active_only: 'true' }).expect(200)).body;
      expect(live.keys.map((k: { api_key: string }) => k.api_key)).toEqual([keys[2].api_key, keys[1].api_key]);
      expect(live.total).toBe(2);

      for (const [query, detail] of [
        [{ limit: 0 }, 'query.limit: limit must be between 1 and 100'],
        [{ limit: 101 }, 'query.limit: limit must be between 1 and 100'],
        [{ limit: 'all' }, 'query.limit: limit must be an integer'],
        [{ offset: -1 }, 'query.offset: offset must be 0 or more'],
        [{ active_only: 'maybe' }, 'query.active_only: active_only must be true or false'],
      ] as const) {
        expect((await page(query).expect(422)).body).toEqual({ detail });
      }
    });

    it("shows nobody else's keys, and answers 401 without a session or token", async () => {
      const aliceCookie = await login(api.request, await newUser());
      const alices = await mint(api.request, aliceCookie);
      const bobCookie = await login(api.request, await newUser());
      const bobs = await mint(api.request, bobCookie);
      const asBob = (await api.request.get('/api/v1/api_credentials/keys').set('Authorization', await bearer(bobs)).expect(200)).body;
      expect(asBob.keys.map((k: { api_key: string }) => k.api_key)).toEqual([bobs.api_key]);
      expect(JSON.stringify(asBob)).not.toContain(alices.api_key);

      expect((await api.request.get('/api/v1/api_credentials/keys').expect(401)).body).toEqual({
        detail: 'Not authenticated: send Authorization: Bearer <token> or the SESSION cookie',
      });
      await api.request.get('/api/v1/api_credentials/keys').set('Cookie', 'SESSION=not-a-session').expect(401);
      await api.request.get('/api/v1/api_credentials/keys').set('Authorization', 'Basic abc').expect(401);
    });
  });

  describe('DELETE /api_credentials/keys/{api_key}', () => {
    it('revokes one of the caller\'s keys: its tokens get 401 "API key revoked", the other keys keep working', async () => {
      const cookie = await login(api.request, await newUser());
      const doomed = await mint(api.request, cookie);
      const kept = await mint(api.request, cookie);
      const doomedToken = await bearer(doomed);
      await api.request.get('/api/v1/datasets').set('Authorization', doomedToken).expect(200);

      const revoked = await api.request.delete(`/api/v1/api_credentials/keys/${doomed.api_key}`).set('Cookie', cookie).expect(200);
      expect(revoked.body).toMatchObject({ api_key: doomed.api_key, status: 'revoked', revoked_at: expect.stringMatching(/Z$/) });
      const refused = await api.request.get('/api/v1/datasets').set('Authorization', doomedToken).expect(401);
      expect(refused.body).toEqual({ detail: 'API key revoked' });
      // A token signed with something else learns nothing about the key's state.
      const forged = await sdkToken(doomed.api_key, 'not-the-secret-of-this-key-0123456789');
      expect((await api.request.get('/api/v1/datasets').set('Authorization', `Bearer ${forged}`).expect(401)).body).toEqual({ detail: 'Invalid token' });
      await api.request.get('/api/v1/datasets').set('Authorization', await bearer(kept)).expect(200);

      // Revoking it again answers the same key, first revocation time kept.
      const again = await api.request.delete(`/api/v1/api_credentials/keys/${doomed.api_key}`).set('Cookie', cookie).expect(200);
      expect(again.body).toEqual(revoked.body);
    });

    it('lets a key revoke itself with its own token', async () => {
      const cookie = await login(api.request, await newUser());
      const key = await mint(api.request, cookie);
      const token = await bearer(key);
      const revoked = await api.request.delete(`/api/v1/api_credentials/keys/${key.api_key}`).set('Authorization', token).expect(200);
      expect(revoked.body.status).toBe('revoked');
      expect((await api.request.get('/api/v1/api_credentials/keys').set('Authorization', token).expect(401)).body).toEqual({ detail: 'API key revoked' });
    });

    it("answers 404 {detail} for another user's key or an unknown one, changing nothing, and 422 for a malformed one", async () => {
      const aliceCookie = await login(api.request, await newUser());
      const alices = await mint(api.request, aliceCookie);
      const bobCookie = await login(api.request, await newUser());
      const bobs = await mint(api.request, bobCookie);

      for (const asBob of [{ Cookie: bobCookie }, { Authorization: await bearer(bobs) }]) {
        for (const target of [alices.api_key, 'ak_doesnotexist0000000000']) {
          const refused = await api.request.delete(`/api/v1/api_credentials/keys/${target}`).set(asBob).expect(404);
          expect(refused.body).toEqual({ detail: 'API key not found' });
        }
      }
      await api.request.get('/api/v1/datasets').set('Authorization', await bearer(alices)).expect(200);
      const aliceKeys = (await api.request.get('/api/v1/api_credentials/keys').set('Cookie', aliceCookie).expect(200)).body.keys;
      expect(aliceKeys).toEqual([expect.objectContaining({ api_key: alices.api_key, revoked_at: null, status: 'active' })]);

      for (const malformed of ['not-a-key', 'ak_', `ak_${'x'.repeat(65)}`, 'ak_a%20b']) {
        const refused = await api.request.delete(`/api/v1/api_credentials/keys/${malformed}`).set('Cookie', bobCookie).expect(422);
        expect(refused.body).toEqual({ detail: 'params.api_key: api_key must be an API key (ak_...)' });
      }
      await api.request.delete(`/api/v1/api_credentials/keys/${alices.api_key}`).expect(401);
    });
  });

  describe('the per-user limit of live keys (API_KEY_MAX_PER_USER = 3 here)', () => {
    it('refuses a fourth key with 409 {detail} until one is revoked or expires', async () => {
      const email = await newUser();
      const cookie = await login(api.request, email);
      const keys = [await mint(api.request, cookie), await mint(api.request, cookie), await mint(api.request, cookie)];
      const refused = await api.request.get('/api/v1/api_credentials').set('Cookie', cookie).expect(409);
      expect(refused.body).toEqual({
        detail: 'You already hold 3 live API keys: revoke one (DELETE /api/v1/api_credentials/keys/{api_key}) before requesting another',
      });
      await api.request.delete(`/api/v1/api_credentials/keys/${keys[0].api_key}`).set('Cookie', cookie).expect(200);
      await mint(api.request, cookie);
      await api.request.get('/api/v1/api_credentials').set('Cookie', cookie).expect(409);
      expect((await api.request.get('/api/v1/api_credentials/keys').set('Cookie', cookie).expect(200)).body.total).toBe(4);

      // Expired keys do not count: with two-second keys the limit frees itself.
      const shortLived = appWith(withKeys({ lifetimeDays: 2 / 86_400, maxPerUser: 1 }));
      const otherCookie = await login(shortLived, await newUser());
      await mint(shortLived, otherCookie);
      await shortLived.get('/api/v1/api_credentials').set('Cookie', otherCookie).expect(409);
      await eventually(
        () => shortLived.get('/api/v1/api_credentials').set('Cookie', otherCookie).then((r) => r.status),
        (status) => status === 200,
        10_000,
        'the expired key to stop counting',
      );
    });

    it('holds under parallel requests: of ten at once, exactly three mint a key', async () => {
      const cookie = await login(api.request, await newUser());
      const answers = await Promise.all(Array.from({ length: 10 }, () => api.request.get('/api/v1/api_credentials').set('Cookie', cookie)));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 409, 409, 409, 409, 409, 409, 409]);
      expect((await api.request.get('/api/v1/api_credentials/keys').set('Cookie', cookie).expect(200)).body.total).toBe(3);
    });
  });

  describe('logout', () => {
    it('ends only the session: API keys outlive it, like personal access tokens', async () => {
      const cookie = await login(api.request, await newUser());
      const key = await mint(api.request, cookie);
      expect((await api.request.post('/api/v1/auth/logout').set('Cookie', cookie).expect(200)).body).toEqual({ message: 'Logged out' });
      await api.request.get('/api/v1/api_credentials/keys').set('Cookie', cookie).expect(401);
      await api.request.get('/api/v1/datasets').set('Authorization', await bearer(key)).expect(200);
    });

    it("with everywhere=true ends every session of the user and revokes all their keys, and nobody else's", async () => {
      const email = await newUser();
      const laptop = await login(api.request, email);
      const phone = await login(api.request, email);
      const keys = [await mint(api.request, laptop), await mint(api.request, phone)];
      const otherCookie = await login(api.request, await newUser());
      const othersKey = await mint(api.request, otherCookie);

      const response = await api.request.post('/api/v1/auth/logout').query({ everywhere: 'true' }).set('Cookie', laptop).expect(200);
      expect(response.body).toEqual({ message: 'Logged out everywhere: 2 sessions ended, 2 API keys revoked', sessions_ended: 2, api_keys_revoked: 2 });
      for (const cookie of [laptop, phone]) await api.request.get('/api/v1/api_credentials/keys').set('Cookie', cookie).expect(401);
      for (const key of keys) {
        expect((await api.request.get('/api/v1/datasets').set('Authorization', await bearer(key)).expect(401)).body).toEqual({ detail: 'API key revoked' });
      }
      await api.request.get('/api/v1/api_credentials/keys').set('Cookie', otherCookie).expect(200);
      await api.request.get('/api/v1/datasets').set('Authorization', await bearer(othersKey)).expect(200);
      // The user logs in again and starts over.
      await mint(api.request, await login(api.request, email));
    });

    it('refuses a malformed everywhere with 422 {detail} and keeps the session; needs a session (401)', async () => {
      const cookie = await login(api.request, await newUser());
      const key = await mint(api.request, cookie);
      const refused = await api.request.post('/api/v1/auth/logout').query({ everywhere: 'maybe' }).set('Cookie', cookie).expect(422);
      expect(refused.body).toEqual({ detail: 'query.everywhere: everywhere must be true or false' });
      await api.request.get('/api/v1/api_credentials/keys').set('Cookie', cookie).expect(200);
      // A bearer token is not a session: it cannot log anyone out.
      await api.request.post('/api/v1/auth/logout').query({ everywhere: 'true' }).set('Authorization', await bearer(key)).expect(401);
      await api.request.get('/api/v1/datasets').set('Authorization', await bearer(key)).expect(200);
    });
  });

  describe('the notification stream ends with what opened it', () => {
    let port: number;
    beforeAll(async () => {
      port = await listen();
    });

    it('closes at the next keepalive after its token expires, with a last error event; a fresh token reconnects', async () => {
      const key = await mint(api.request, await login(api.request, await newUser()));
      const shortToken = await bearer(key, 2);
      const longToken = await bearer(key);
      const short = await openStream(port, '', { Authorization: shortToken });
      const long = await openStream(port, '', { Authorization: longToken });
      try {
        // Two seconds of token, then at most one 3-second cycle (and some slack for a busy machine).
        expect(await endOf(short, 8000)).toEqual(closesBecause('Token expired'));
        // A stream whose token is still good stays open past the same tick.
        let longEnded = false;
        void long.ended.then(() => (longEnded = true));
        await eventually(async () => long.events.filter((e) => e.event === 'ping').length, (n) => n >= 1, 2000, 'a ping on the other stream');
        expect(long.events.some((e) => e.event === 'error')).toBe(false);
        expect(longEnded).toBe(false);
        const fresh = await openStream(port, '', { Authorization: await bearer(key) });
        fresh.close();
      } finally {
        short.close();
        long.close();
      }
    });

    it('closes within a cycle once its key is revoked', async () => {
      const cookie = await login(api.request, await newUser());
      const key = await mint(api.request, cookie);
      const stream = await openStream(port, '', { Authorization: await bearer(key) });
      try {
        await eventually(async () => stream.events.filter((e) => e.event === 'ping').length, (n) => n >= 1, 5000, 'a first ping');
        await api.request.delete(`/api/v1/api_credentials/keys/${key.api_key}`).set('Cookie', cookie).expect(200);
        expect(await endOf(stream, 5000)).toEqual(closesBecause('API key revoked'));
        await expect(openStream(port, '', { Authorization: await bearer(key) })).rejects.toThrow('stream answered 401');
      } finally {
        stream.close();
      }
    });

    it('closes when the user logs out everywhere, or is disabled', async () => {
      const email = await newUser();
      const cookie = await login(api.request, email);
      const stream = await openStream(port, '', { Authorization: await bearer(await mint(api.request, cookie)) });
      const otherEmail = await newUser();
      const other = await openStream(port, '', { Authorization: await bearer(await mint(api.request, await login(api.request, otherEmail))) });
      try {
        await api.request.post('/api/v1/auth/logout').query({ everywhere: 'true' }).set('Cookie', cookie).expect(200);
        await api.deps.db('users').where({ email: otherEmail }).update({ enabled: false });
        const [mine, theirs] = await Promise.all([endOf(stream, 5000), endOf(other, 5000)]);
        expect(mine).toEqual(closesBecause('API key revoked'));
        expect(theirs).toEqual(closesBecause('User is disabled or no longer exists'));
      } finally {
        stream.close();
        other.close();
      }
    });

    describe('on premises with logins, where browsers stream with the session cookie', () => {
      const onPrem = (sessionTtlHours: number) => (config: Config): Config => ({
        ...config,
        runMode: 'ONPREM',
        disableAuth: false,
        auth: { ...config.auth, sessionTtlHours },
      });

      it('closes when the session ends (logout)', async () => {
        const request = appWith(onPrem(1));
        const sessionPort = await listen(onPrem(1));
        const cookie = await login(request, await newUser());
        const stream = await openStream(sessionPort, '', { Cookie: cookie });
        try {
          await request.post('/api/v1/auth/logout').set('Cookie', cookie).expect(200);
          expect(await endOf(stream, 5000)).toEqual(closesBecause('Session ended'));
        } finally {
          stream.close();
        }
      });

      it('closes when the session expires', async () => {
        // Sessions of this app last three seconds.
        const shortSessions = onPrem(3 / 3600);
        const request = appWith(shortSessions);
        const sessionPort = await listen(shortSessions);
        const stream = await openStream(sessionPort, '', { Cookie: await login(request, await newUser()) });
        try {
          expect(await endOf(stream, 9000)).toEqual(closesBecause('Session expired'));
        } finally {
          stream.close();
        }
      });
    });
  });
});
