import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { assertBrowserPrerequisites, launchChromium, localPublicUrl, screenshotsDir, serveOverHttp } from './browser';
import { eventually } from './media';
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

/**
 * Checks a radio or checkbox whose checked state follows the page's URL: React puts the control back until the route
 * changes, so Playwright's `check()` may see it unchanged on a loaded machine. This clicks, then waits for it.
 */
export async function choose(control: Locator): Promise<void> {
  await control.click();
  await eventually(() => control.isChecked(), Boolean, 15_000, 'the control checked');
}

/** Every thumbnail in view decoded (lazy ones below the fold are scrolled to first). */
export async function waitForLoadedImages(page: Page): Promise<void> {
  // Not while the grid still shows the previous answer (it is marked busy).
  await page.locator('ul[aria-label="Clusters"]:not([aria-busy="true"]) img').last().scrollIntoViewIfNeeded();
  await page.waitForFunction(`(() => {
    const images = Array.from(document.querySelectorAll('ul[aria-label="Clusters"] img'));
    return images.length > 0 && images.every((image) => image.complete && image.naturalWidth > 0);
  })()`);
}

/** Media ids Explore's grid shows, read from the page (browser code as a string: the root tsconfig has no DOM types). */
export async function shownMediaIds(page: Page): Promise<string[]> {
  await waitForLoadedImages(page);
  return ((await page.evaluate(`Array.from(document.querySelectorAll('ul[aria-label="Clusters"] button.thumb')).map((thumb) => thumb.getAttribute('data-media-id'))`)) as string[]).sort();
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** The page is no wider than the screen (what sticks out is named) and axe-core finds no serious or critical violation on it. */
export async function expectFitsAndAccessible(page: Page): Promise<void> {
  // A region being refreshed is dimmed (its contrast drops on purpose): check the page once it has settled.
  await page.waitForFunction(`document.querySelector('[aria-busy="true"]') === null`);
  const widths = (await page.evaluate('({ document: document.documentElement.scrollWidth, viewport: window.innerWidth })')) as { document: number; viewport: number };
  const overflowing = widths.document > widths.viewport ? await page.evaluate(`Array.from(document.querySelectorAll('body *')).filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5 && !element.closest('.table-scroll table')).slice(0, 6).map((element) => element.tagName.toLowerCase() + (element.className ? '.' + String(element.className).split(' ').join('.') : '') + ' ' + Math.round(element.getBoundingClientRect().right) + 'px')`) : [];
  expect({ ...widths, overflowing }).toEqual({ document: widths.viewport, viewport: widths.viewport, overflowing: [] });
  // Evaluated, not added as an inline script tag, which the app's Content-Security-Policy refuses.
  await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)`)) as AxeViolation[];
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).slice(0, 5).join(', ')}`);
  expect(serious).toEqual([]);
}
