import { startWebApp, type WebApp } from '../support/webApp';

/** The API reference at /api/v1/docs: Swagger UI from this host renders the served OpenAPI document. */
describe('API reference in the browser', () => {
  let web: WebApp;
  const requested: string[] = [];
  const refused: string[] = [];

  beforeAll(async () => {
    web = await startWebApp();
    web.page.on('request', (request) => requested.push(request.url()));
    // The browser reports what the page's Content-Security-Policy blocked on the console.
    web.page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
  }, 180_000);
  afterAll(() => web?.close());

  it("is linked from the app's header and renders the operations of the served document, with no request leaving the host", async () => {
    const { page } = web;
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL('**/api/v1/docs');

    const health = page.locator('.opblock-summary', { hasText: '/api/v1/health' });
    await health.waitFor();
    await page.locator('.opblock-summary', { hasText: '/api/v1/dataset/{dataset_id}/export_context_async' }).waitFor();
    expect(await health.textContent()).toContain('Health of Postgres, Temporal and the workers');
    // Every operation of the document is on the page.
    const document = (await (await fetch(`${web.http.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, object> };
    const operations = Object.values(document.paths).reduce((count, methods) => count + Object.keys(methods).length, 0);
    expect(await page.locator('.opblock').count()).toBe(operations);

    // An operation opens and, tried out, asks this server (not the host the document names).
    await health.click();
    await page.getByRole('button', { name: 'Try it out' }).click();
    await page.getByRole('button', { name: 'Execute' }).click();
    await page.locator('.opblock.is-open .live-responses-table .response-col_status', { hasText: '200' }).first().waitFor();
    await web.screenshot('api-docs');

    const origin = new URL(web.http.url).origin;
    expect(requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${origin}/api/v1/openapi.json`);
    expect(requested).toContain(`${origin}/api/v1/health`);
    expect(refused).toEqual([]);
    expect(web.pageErrors).toEqual([]);
  });

  it('serves only Swagger UI’s own files next to the page, under a policy that allows this host alone', async () => {
    const page = await fetch(`${web.http.url}/api/v1/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
    expect((await fetch(`${web.http.url}/api/v1/docs/swagger-ui-bundle.js`)).status).toBe(200);
    const other = await fetch(`${web.http.url}/api/v1/docs/package.json`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ detail: expect.any(String) });
    expect((await fetch(`${web.http.url}/api/v1/docs/..%2Fpackage.json`)).status).toBe(404);
  });
});
