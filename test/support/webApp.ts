import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { assertBrowserPrerequisites, launchChromium, localPublicUrl, screenshotsDir, serveOverHttp } from './browser';
import { startTestStack } from './testStack';

export type WebApp = Awaited<ReturnType<typeof startWebApp>>;

/**
 * What every web e2e suite starts with: the real API and worker (with `env`) serving the built app
 * over HTTP, headless Chromium, and one page of the app that records uncaught page errors.
 */
export async function startWebApp(env: Record<string, string> = {}) {
  assertBrowserPrerequisites();
  const stack = await startTestStack({ PUBLIC_URL: await localPublicUrl(), ...env });
  const http = await serveOverHttp(stack);
  const browser: Browser = await launchChromium();
  const page = await browser.newPage({ baseURL: http.url, viewport: { width: 1400, height: 1000 } });
  page.setDefaultTimeout(15_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return {
    stack,
    http,
    browser,
    page,
    pageErrors,
    /** test-results/web-<name>.png of the whole page. */
    screenshot: (name: string) => page.screenshot({ path: path.join(screenshotsDir(), `web-${name}.png`), fullPage: true }),
    async close() {
      await browser.close();
      await http.close();
      await stack.close();
    },
  };
}

/** The first element's text comes to match `pattern` within 15 s (the app updates it when its requests answer). */
export async function expectText(locator: Locator, pattern: RegExp): Promise<void> {
  await locator.first().waitFor();
  const deadline = Date.now() + 15_000;
  let text = await locator.first().textContent();
  while (!pattern.test(text ?? '') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    text = await locator.first().textContent();
  }
  expect(text).toMatch(pattern);
}

/** Every thumbnail in view decoded (lazy ones below the fold are scrolled to first). */
export async function waitForLoadedImages(page: Page): Promise<void> {
  // Not while the grid still shows the previous answer (it is marked as fetching).
  await page.locator('ul[aria-label="Clusters"]:not(.fetching) img').last().scrollIntoViewIfNeeded();
  await page.waitForFunction(`(() => {
    const images = Array.from(document.querySelectorAll('ul[aria-label="Clusters"] img'));
    return images.length > 0 && images.every((image) => image.complete && image.naturalWidth > 0);
  })()`);
}
