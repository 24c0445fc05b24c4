import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import type { Env } from '../../lib/config';
import { oidcBrowser } from './cookieJar';
import { TEST_SERVICE_URL, waitForTestKeycloak, type TestKeycloak } from './keycloak';
import { startTestApi, type TestApi } from './testStack';

export interface IdentityStack {
  keycloak: TestKeycloak;
  api: TestApi;
  port: number;
  /** Where this API listens; the realm's redirects to TEST_SERVICE_URL are sent here. */
  base: string;
  browser: ReturnType<typeof oidcBrowser>;
  close(): Promise<void>;
}

/** The run's Keycloak, and an API with authentication that logs in through it, listening on a port of its own. */
export async function startIdentityStack(env: Env = {}): Promise<IdentityStack> {
  const keycloak = await waitForTestKeycloak();
  const api = await startTestApi({
    DISABLE_AUTH: 'false',
    OIDC_ISSUER: keycloak.issuer,
    OIDC_CLIENT_ID: keycloak.clientId,
    OIDC_CLIENT_SECRET: keycloak.clientSecret,
    PUBLIC_URL: TEST_SERVICE_URL,
    ADMIN_EMAIL: keycloak.admin.email,
    ...env,
  });
  const server = http.createServer(createApp(api.deps).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  return {
    keycloak,
    api,
    port,
    base,
    browser: oidcBrowser(base),
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await api.close();
    },
  };
}
