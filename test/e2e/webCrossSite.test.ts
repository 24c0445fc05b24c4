import http from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { assertBrowserPrerequisites, launchChromium, localPublicUrl, serveOverHttp } from '../support/browser';
import { freePort } from '../support/ports';
import { startTestApi, type TestApi } from '../support/testStack';

/**
 * Another site's pages in a real Chromium against the API without authentication: a state-changing
 * GET sent by an image or a navigation (in any letter case: the router matches paths case-insensitively)
 * is refused, and the app's pages cannot be framed.
 */
describe('pages of another site', () => {
  let api: TestApi;
  let served: Awaited<ReturnType<typeof serveOverHttp>>;
  let attacker: http.Server;
  let attackerUrl: string;
  let browser: Browser;
  let page: Page;
  const pages = new Map<string, string>();

  beforeAll(async () => {
    assertBrowserPrerequisites();
    api = await startTestApi({ PUBLIC_URL: await localPublicUrl() });
    served = await serveOverHttp(api);
    const port = await freePort();
    attackerUrl = `http://127.0.0.1:${port}`;
    attacker = http.createServer((request, response) => {
      const body = pages.get(request.url ?? '');
      response.writeHead(body === undefined ? 404 : 200, { 'Content-Type': 'text/html' }).end(body ?? '');
    });
    await new Promise<void>((resolve) => attacker.listen(port, '127.0.0.1', resolve));
    browser = await launchChromium();
    page = await browser.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await served?.close();
    await api?.close();
  });

  const datasetNames = async () => (await api.deps.db('datasets').orderBy('created_at').pluck('display_name')) as string[];

  it('creates nothing from an image or a navigation to a state-changing GET, in any letter case', async () => {
    const before = await datasetNames();
    const targets = ['/api/v1/INGESTION/NEW_DATASET?dataset_name=upper', '/api/v1/Ingestion/New_Dataset?dataset_name=mixed', '/api/v1/ingestion/new_dataset?dataset_name=lower'];
    pages.set('/images', `<!doctype html><body>${targets.map((target) => `<img src="${served.url}${target}">`).join('')}</body>`);
    await page.goto(`${attackerUrl}/images`);
    await page.waitForLoadState('networkidle');
    for (const target of targets) {
      pages.set('/navigate', `<!doctype html><script>location.href = ${JSON.stringify(served.url + target)};</script>`);
      const answer = page.waitForResponse((response) => response.url().startsWith(served.url));
      await page.goto(`${attackerUrl}/navigate`);
      expect((await answer).status()).toBe(403);
    }
    expect(await datasetNames()).toEqual(before);
    // The same request from no page (typed into the address bar) is the user's own.
    const typed = await page.goto(`${served.url}/api/v1/INGESTION/NEW_DATASET?dataset_name=typed`);
    expect(typed?.status()).toBe(200);
    expect(await datasetNames()).toEqual([...before, 'typed']);
  });

  it("refuses to be framed by another site's page, and still renders as a page of its own", async () => {
    pages.set('/frame', `<!doctype html><body><iframe id="app" src="${served.url}/" width="800" height="600"></iframe></body>`);
    const refused = page.waitForEvent('console', (message) => /frame-ancestors|refused to display|X-Frame-Options/i.test(message.text()));
    await page.goto(`${attackerUrl}/frame`);
    await refused;
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    expect(await frame?.locator('#root').count()).toBe(0);

    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    const own = await page.goto(`${served.url}/`);
    expect(own?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(own?.headers()['x-frame-options']).toBe('DENY');
    await page.getByRole('heading', { name: 'Datasets', exact: true }).waitFor();
    expect(errors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
  });
});
