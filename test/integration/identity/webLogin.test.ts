import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { assertBrowserPrerequisites, launchChromium, screenshotsDir } from '../../support/browser';
import { startIdentityStack, type IdentityStack } from '../../support/identityStack';
import { createKeycloakUser, TEST_SERVICE_URL, waitForTestKeycloak } from '../../support/keycloak';

/**
 * The web app with an identity provider, in headless Chromium: the service answers at its public
 * name (TEST_SERVICE_URL, resolved to the test API's port), Keycloak at its own address.
 */
describe('web app sign-in through Keycloak', () => {
  let stack: IdentityStack;
  let browser: Browser;
  // This file's own admin: Keycloak (26) refuses concurrent logins of one user when brute-force
  // detection is on, and the run's other identity suites sign the realm admin in meanwhile.
  const tag = randomBytes(3).toString('hex');
  const admin = { username: `web-${tag}`, email: `web-${tag}@example.com`, password: 'web-admin-password-1' };

  beforeAll(async () => {
    assertBrowserPrerequisites();
    await createKeycloakUser(await waitForTestKeycloak(), admin);
    stack = await startIdentityStack({ ADMIN_EMAIL: admin.email });
    browser = await launchChromium([`--host-resolver-rules=MAP ${new URL(TEST_SERVICE_URL).host}:80 127.0.0.1:${stack.port}`]);
  }, 330_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('offers the provider sign-in, comes back signed in to the page it left, writes from its own pages, and signs out at the provider too', async () => {
    const page = await (await browser.newContext({ baseURL: TEST_SERVICE_URL })).newPage();
    await page.goto('/tasks');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Sign in with the identity provider' }).click();

    await page.waitForURL(`${stack.keycloak.issuer}/**`);
    await page.locator('#username').fill(admin.email);
    await page.locator('#password').fill(admin.password);
    await page.locator('#kc-login').click();
    await page.waitForURL(`${TEST_SERVICE_URL}/tasks`);
    await page.getByRole('button', { name: `Sign out ${admin.email}` }).waitFor();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await page.screenshot({ path: path.join(screenshotsDir(), 'oidc-signed-in.png') });

    // A write from the app's own page carries the cookie and passes the cross-site check.
    expect(await page.evaluate(async () => (await fetch('/api/v1/notifications/read-all', { method: 'POST' })).status)).toBe(200);

    await page.getByRole('button', { name: `Sign out ${admin.email}` }).click();
    await page.waitForURL(`${TEST_SERVICE_URL}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The provider's session ended with ours: signing in again asks for the password.
    await page.getByRole('link', { name: 'Sign in with the identity provider' }).click();
    await page.locator('#password').waitFor();
  });
});
