import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../api/app';
import { loadConfig } from '../../../lib/config';
import { createCookieJar, loginFormAction } from '../../support/cookieJar';
import { allowServiceUrl, createKeycloakUser, waitForTestKeycloak } from '../../support/keycloak';
import { startTestApi, type TestApi } from '../../support/testStack';

/**
 * The README's login: `RUN_MODE=ONPREM DISABLE_AUTH=false npm start`, no PUBLIC_URL. The launcher
 * imports the realm for the configuration's public URL; here the run's Keycloak is given the same.
 */
describe("the README's on-premises login (RUN_MODE=ONPREM DISABLE_AUTH=false, no PUBLIC_URL)", () => {
  const readmeEnv = { RUN_MODE: 'ONPREM', DISABLE_AUTH: 'false' };
  let api: TestApi;
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const keycloak = await waitForTestKeycloak();
    await allowServiceUrl(keycloak, loadConfig(readmeEnv).publicUrl);
    await createKeycloakUser(keycloak, { username: 'readme-reader', email: 'readme-reader@example.com', password: 'readme-password-1' });
    // What npm start adds for its own Keycloak: the issuer and the client; nothing about this service's address.
    api = await startTestApi({ ...readmeEnv, OIDC_ISSUER: keycloak.issuer, OIDC_CLIENT_ID: keycloak.clientId, OIDC_CLIENT_SECRET: keycloak.clientSecret });
    server = http.createServer(createApp(api.deps).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 330_000);
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await api?.close();
  });

  it('sends the browser back to http://localhost:8080 whatever the request says of its origin, and the login completes', async () => {
    const readmeUrl = 'http://localhost:8080';
    const jar = createCookieJar();
    const start = await jar.request(`${base}/api/v1/auth/oidc/login`, { headers: { origin: 'http://attacker.example', 'x-forwarded-host': 'attacker.example' } });
    expect(start.status).toBe(302);
    expect(new URL(start.location!).searchParams.get('redirect_uri')).toBe(`${readmeUrl}/api/v1/auth/oidc/callback`);

    const page = await jar.request(start.location!);
    expect(page.status).toBe(200);
    const submitted = await jar.request(loginFormAction(page.body), { form: { username: 'readme-reader', password: 'readme-password-1', credentialId: '' } });
    expect(submitted.status).toBe(302);
    expect(submitted.location!.startsWith(`${readmeUrl}/api/v1/auth/oidc/callback?`)).toBe(true);
    // The browser would go to localhost:8080, where this API stands in for npm start's.
    const callback = await jar.request(submitted.location!.replace(readmeUrl, base));
    expect(callback.status).toBe(302);
    const cookie = `SESSION=${jar.get(base, 'SESSION')}`;
    const session = await fetch(`${base}/api/v1/auth/session`, { headers: { cookie } });
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe('readme-reader@example.com');

    const logout = await fetch(`${base}/api/v1/auth/logout`, { method: 'POST', headers: { cookie } });
    const logoutUrl = new URL(((await logout.json()) as { logout_url: string }).logout_url);
    expect(logoutUrl.searchParams.get('post_logout_redirect_uri')).toBe(`${readmeUrl}/`);
  });
});
