import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../api/app';
import { createDataset } from '../../../db/repositories/datasets';
import { Workspace } from '../../../db/models';
import { createCookieJar, loginFormAction, type CookieJar } from '../../support/cookieJar';
import { startIdentityStack, type IdentityStack } from '../../support/identityStack';
import { createKeycloakUser, TEST_SERVICE_URL, type TestKeycloak } from '../../support/keycloak';
import { openStream } from '../../support/sse';
import type { TestApi } from '../../support/testStack';

/**
 * OIDC login against the run's real Keycloak (test/support/keycloak.ts), driven by an HTTP client
 * with a cookie jar: authorization code + PKCE, state and nonce, ID token against the JWKS, the
 * SESSION cookie on the API and the notification stream, logout at the provider too, CSRF.
 */
describe('OIDC login through Keycloak', () => {
  let keycloak: TestKeycloak;
  let api: TestApi;
  let stack: IdentityStack;
  let port: number;
  let base: string;
  let browser: IdentityStack['browser'];

  beforeAll(async () => {
    stack = await startIdentityStack();
    ({ keycloak, api, port, base, browser } = stack);
  }, 330_000);
  afterAll(() => stack?.close());

  it('logs the realm admin in with PKCE, state and nonce, links the existing admin by verified email, and the session cookie works', async () => {
    const jar = createCookieJar();
    const { authorize, page } = await browser.startLogin(jar, '/datasets?x=1');
    expect(authorize.origin + authorize.pathname).toBe(`${keycloak.issuer}/protocol/openid-connect/auth`);
    const params = Object.fromEntries(authorize.searchParams);
    expect(params).toMatchObject({
      response_type: 'code',
      client_id: 'media-dataset-service',
      redirect_uri: `${TEST_SERVICE_URL}/api/v1/auth/oidc/callback`,
      code_challenge_method: 'S256',
      scope: 'openid email profile',
    });
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(page.status).toBe(200);

    // Wrong credentials are the provider's business: its form again, no code for us. An unknown
    // account, so that the realm admin, whom this file signs in many times, has no failure on record
    // for Keycloak's brute-force detection (a failed login of the admin here once made its next one fail).
    const wrong = await jar.request(loginFormAction(page.body), { form: { username: 'nobody@example.com', password: 'wrong-password', credentialId: '' } });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toContain('Invalid username or password');

    const callback = await jar.request(await browser.submitCredentials(jar, wrong.body, keycloak.admin.email, keycloak.admin.password));
    expect(callback.status).toBe(302);
    expect(callback.location).toBe(`${base}/datasets?x=1`);
    const cookie = callback.setCookies.find((line) => line.startsWith('SESSION='))!;
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=lax/i);
    expect(jar.get(base, 'OIDC_LOGIN')).toBeUndefined();

    const datasets = await fetch(`${base}/api/v1/datasets`, { headers: { cookie: browser.session(jar) } });
    expect(datasets.status).toBe(200);
    const admin = await api.deps.db('users').where({ email: keycloak.admin.email }).first();
    expect(admin.id).toBe(api.deps.defaultUser.id);
    expect(admin.idp_subject).toMatch(/^[0-9a-f-]{36}$/);
    expect(admin.realm_roles).toEqual(expect.arrayContaining(['manage-users', 'view-users', 'query-users', 'query-groups']));
    expect(await api.deps.db('sessions').where({ user_id: admin.id }).whereNotNull('id_token').count({ n: '*' }).first()).toEqual({ n: '1' });
  });

  it('creates a user on first login (viewer of the workspace), who sees a dataset once the owner shares it', async () => {
    const subject = await createKeycloakUser(keycloak, { username: 'vera', email: 'Vera@Example.com', password: 'vera-password-1' });
    const owner = createCookieJar();
    await browser.login(owner, keycloak.admin.email, keycloak.admin.password);
    const vera = createCookieJar();
    await browser.login(vera, 'vera', 'vera-password-1');

    const user = await api.deps.db('users').where({ idp_subject: subject }).first();
    expect(user).toMatchObject({ email: 'vera@example.com', username: 'vera', first_name: 'Test', last_name: 'User' });
    const workspace = await Workspace.query(api.deps.db).orderBy('created_at').first();
    expect(await api.deps.db('workspace_members').where({ user_id: user.id }).first()).toMatchObject({ workspace_id: workspace!.id, role: 'viewer' });

    const dataset = await createDataset(api.deps.db, { name: 'shared', ownerId: api.deps.defaultUser.id, workspaceId: workspace!.id, status: 'READY' });
    expect((await fetch(`${base}/api/v1/dataset/${dataset.id}`, { headers: { cookie: browser.session(vera) } })).status).toBe(403);
    const invite = await fetch(`${base}/api/v1/manage/${dataset.id}/invite`, {
      method: 'PUT',
      headers: { cookie: browser.session(owner), 'content-type': 'application/json', origin: TEST_SERVICE_URL, 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ grant_to_user_email: 'vera@example.com' }),
    });
    expect(invite.status).toBe(200);
    expect((await fetch(`${base}/api/v1/dataset/${dataset.id}`, { headers: { cookie: browser.session(vera) } })).status).toBe(200);
    const write = await fetch(`${base}/api/v1/dataset/${dataset.id}/tags`, {
      method: 'POST',
      headers: { cookie: browser.session(vera), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'mine' }),
    });
    expect(write.status).toBe(403);

    // A second login is the same user.
    await browser.login(createCookieJar(), 'vera', 'vera-password-1');
    expect(await api.deps.db('users').where({ idp_subject: subject }).count({ n: '*' }).first()).toEqual({ n: '1' });
  });

  it('serves the notification stream to the session cookie, and closes it when the user logs out, also at the provider', async () => {
    const jar = createCookieJar();
    await browser.login(jar, keycloak.admin.email, keycloak.admin.password);
    const stream = await openStream(port, '', { cookie: browser.session(jar) });
    try {
      // Logout is a write: it comes from the service's own page.
      const response = await fetch(`${base}/api/v1/auth/logout`, { method: 'POST', headers: { cookie: browser.session(jar), 'sec-fetch-site': 'same-origin' } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { message: string; logout_url: string };
      expect(body.message).toBe('Logged out');
      const logoutUrl = new URL(body.logout_url);
      expect(logoutUrl.origin + logoutUrl.pathname).toBe(`${keycloak.issuer}/protocol/openid-connect/logout`);
      expect(logoutUrl.searchParams.get('post_logout_redirect_uri')).toBe(`${TEST_SERVICE_URL}/`);
      expect(logoutUrl.searchParams.get('id_token_hint')).toBeTruthy();
      await stream.ended;
      expect(stream.events.at(-1)).toEqual({ event: 'error', data: { detail: 'Session ended: the stream is closed; reconnect with valid credentials', closed: true } });
      expect((await fetch(`${base}/api/v1/datasets`, { headers: { cookie: browser.session(jar) } })).status).toBe(401);

      // Before the provider's logout a new login passes straight through its SSO session; after it, its form is back.
      const before = await browser.startLogin(createJarLike(jar));
      expect(before.page.status).toBe(302);
      const ended = await jar.request(body.logout_url);
      expect(ended.status).toBe(302);
      expect(ended.location).toBe(`${TEST_SERVICE_URL}/`);
      const after = await browser.startLogin(jar);
      expect(after.page.status).toBe(200);
      expect(loginFormAction(after.page.body)).toContain('/login-actions/authenticate');
    } finally {
      stream.close();
    }
  });

  /** A second browser tab: the same provider cookies, its own login in progress. */
  function createJarLike(jar: CookieJar): CookieJar {
    const copy = createCookieJar();
    for (const name of ['KEYCLOAK_IDENTITY', 'KEYCLOAK_SESSION', 'AUTH_SESSION_ID']) {
      const value = jar.get(keycloak.url, name);
      if (value) copy.set(keycloak.url, name, value);
    }
    return copy;
  }

  it('refuses a callback whose state does not match, one with no login in progress, and a replayed code (401), setting no session', async () => {
    const jar = createCookieJar();
    const { page } = await browser.startLogin(jar);
    const callback = new URL(await browser.submitCredentials(jar, page.body, keycloak.admin.email, keycloak.admin.password));

    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state');
    const refused = await jar.request(forged.toString());
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual({ detail: 'The login state does not match: start the login again' });
    expect(jar.get(base, 'SESSION')).toBeUndefined();

    // The pending login was spent by the refused attempt: the real callback finds none now.
    const spent = await jar.request(callback.toString());
    expect(spent.status).toBe(401);
    expect(JSON.parse(spent.body)).toEqual({ detail: 'No login in progress in this browser: start it at /api/v1/auth/oidc/login' });
    // Another browser (no OIDC_LOGIN cookie) cannot use a code it intercepted.
    const elsewhere = await createCookieJar().request(callback.toString());
    expect(elsewhere.status).toBe(401);
    expect(jar.get(base, 'SESSION')).toBeUndefined();
  });

  it('refuses an ID token whose nonce is not the login\'s (401)', async () => {
    const jar = createCookieJar();
    const { page } = await browser.startLogin(jar);
    // The browser's pending login, re-sealed with another nonce (only the server's key can do that).
    const pending = JSON.parse(api.deps.secretBox.open(decodeURIComponent(jar.get(base, 'OIDC_LOGIN')!)));
    jar.set(base, 'OIDC_LOGIN', api.deps.secretBox.seal(JSON.stringify({ ...pending, nonce: 'another-nonce' })));
    const callback = await jar.request(await browser.submitCredentials(jar, page.body, keycloak.admin.email, keycloak.admin.password));
    expect(callback.status).toBe(401);
    expect(JSON.parse(callback.body)).toEqual({ detail: 'The ID token nonce does not match: start the login again' });
    expect(jar.get(base, 'SESSION')).toBeUndefined();
  });

  it('refuses writes with the session cookie from another site (403) and lets the same site, reads and bearer-less tools through', async () => {
    const jar = createCookieJar();
    await browser.login(jar, keycloak.admin.email, keycloak.admin.password);
    const workspace = await Workspace.query(api.deps.db).orderBy('created_at').first();
    const dataset = await createDataset(api.deps.db, { name: 'csrf', ownerId: api.deps.defaultUser.id, workspaceId: workspace!.id, status: 'READY' });
    const createTag = (headers: Record<string, string>) =>
      fetch(`${base}/api/v1/dataset/${dataset.id}/tags`, {
        method: 'POST',
        headers: { cookie: browser.session(jar), 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ name: `tag-${Math.random()}` }),
      });
    const refusal = { detail: "Cross-site request refused: a request that changes data must come from this service's own pages" };
    const crossSite: Array<Record<string, string>> = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'http://evil.example' }, { origin: 'null' }];
    for (const headers of crossSite) {
      const response = await createTag(headers);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual(refusal);
    }
    expect(await api.deps.db('tags').where({ version_id: dataset.head_version_id })).toEqual([]);
    expect((await createTag({ 'sec-fetch-site': 'same-origin', origin: TEST_SERVICE_URL })).status).toBe(201);
    expect((await createTag({ origin: TEST_SERVICE_URL })).status).toBe(201);
    expect((await createTag({})).status).toBe(201);
    // Reads are not writes.
    expect((await fetch(`${base}/api/v1/datasets`, { headers: { cookie: browser.session(jar), 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
    // A cross-site logout is refused too (it would end the session).
    expect((await fetch(`${base}/api/v1/auth/logout`, { method: 'POST', headers: { cookie: browser.session(jar), origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('refuses password logins, bad parameters (422) and, after repeated failed callbacks, the address (429)', async () => {
    const password = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: keycloak.admin.email, password: keycloak.admin.password }),
    });
    expect(password.status).toBe(403);
    for (const returnTo of ['//evil.example/x', 'https://evil.example/', 'relative', '/\\evil.example']) {
      const response = await fetch(`${base}/api/v1/auth/oidc/login?return_to=${encodeURIComponent(returnTo)}`, { redirect: 'manual' });
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({ detail: 'query.return_to: return_to must be a path of this service' });
    }
    const noState = await fetch(`${base}/api/v1/auth/oidc/callback?code=abc`, { redirect: 'manual' });
    expect(noState.status).toBe(422);

    // A fresh app (its own throttle): LOGIN_MAX_FAILURES (5) failed callbacks lock the address out.
    const throttled = http.createServer(createApp(api.deps).callback());
    await new Promise<void>((resolve) => throttled.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(throttled.address() as AddressInfo).port}/api/v1/auth/oidc/callback?code=abc&state=def`;
      for (let attempt = 0; attempt < 5; attempt++) expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
      const locked = await fetch(url, { redirect: 'manual' });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => throttled.close(resolve));
    }
  });
});
