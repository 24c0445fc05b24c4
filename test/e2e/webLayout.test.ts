import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { createReadyDataset } from '../support/datasets';
import { photo } from '../support/media';
import { expectFitsAndAccessible, startWebApp, waitForLoadedImages, type WebApp } from '../support/webApp';

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/** Every page of the app at a phone's and a laptop's width: no horizontal scroll, and axe-core finds nothing serious. */
describe('web app layout and accessibility', () => {
  let web: WebApp;
  let datasetId: string;
  let clusterId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'web-layout-'));

  beforeAll(async () => {
    web = await startWebApp();
    const copy = path.join(scratch, 'chelsea_small.jpg');
    await sharp(photo('chelsea')).resize(240).jpeg({ quality: 70 }).toFile(copy);
    datasetId = await createReadyDataset(web.stack, 'layout', [photo('chelsea'), copy, photo('coffee'), photo('rocket')]);
    await web.stack.request.post(`/api/v1/dataset/${datasetId}/views`).field('name', 'everything').expect(200);
    clusterId = (await web.stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold: 4 }).expect(200)).body.clusters[0].cluster_id;
  }, 180_000);
  afterAll(async () => {
    await web?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Each page, and what shows once it has loaded. */
  const pages: Array<{ name: string; url: () => string; ready(page: Page): Promise<unknown> }> = [
    { name: 'Datasets', url: () => '/', ready: (page) => page.getByRole('link', { name: 'layout', exact: true }).waitFor() },
    { name: 'Dataset', url: () => `/datasets/${datasetId}`, ready: (page) => page.getByRole('heading', { name: 'Snapshots' }).waitFor() },
    { name: 'Explore', url: () => `/datasets/${datasetId}/explore`, ready: (page) => waitForLoadedImages(page) },
    {
      name: 'Explore viewer',
      url: () => `/datasets/${datasetId}/explore`,
      ready: async (page) => {
        await waitForLoadedImages(page);
        await page.locator('button.thumb').first().click();
        await page.getByTestId('viewer-facts').waitFor();
      },
    },
    {
      name: 'Shortcuts sheet',
      url: () => `/datasets/${datasetId}/explore`,
      ready: async (page) => {
        await waitForLoadedImages(page);
        await page.keyboard.press('?');
        await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
      },
    },
    { name: 'Duplicates', url: () => `/datasets/${datasetId}/duplicates`, ready: (page) => page.locator('ul[aria-label="Duplicate groups"] > li').first().waitFor() },
    { name: 'Labels (no report yet)', url: () => `/datasets/${datasetId}/labels`, ready: (page) => page.getByTestId('no-label-report').waitFor() },
    { name: 'Map', url: () => `/datasets/${datasetId}/map`, ready: (page) => page.locator('.map-frame[data-state="drawn"]').waitFor() },
    { name: 'Cluster', url: () => `/datasets/${datasetId}/clusters/${clusterId}`, ready: (page) => page.locator('ul[aria-label="Cluster members"] img').first().waitFor() },
    { name: 'Tasks', url: () => '/tasks', ready: (page) => page.getByRole('cell', { name: 'DATASET_CREATION' }).first().waitFor() },
    { name: 'Not found', url: () => '/no/such/page', ready: (page) => page.getByRole('heading').first().waitFor() },
  ];

  for (const { width, height } of VIEWPORTS) {
    for (const shown of pages) {
      it(`${shown.name} at ${width}x${height} is as wide as the screen, and axe-core finds no serious or critical violation`, async () => {
        const context = await web.browser.newContext({ baseURL: web.http.url, viewport: { width, height } });
        try {
          const page = await context.newPage();
          await page.goto(shown.url());
          await shown.ready(page);
          await expectFitsAndAccessible(page);
        } finally {
          await context.close();
        }
      });
    }
  }

  it('offers a skip link first, Tab passes the Explore grid in one stop while the arrow keys move inside it, and Escape closes the notifications', async () => {
    const page = web.page;
    await page.goto(`/datasets/${datasetId}/explore`);
    await waitForLoadedImages(page);
    const active = () => page.evaluate('({ tag: document.activeElement.tagName, text: document.activeElement.textContent.trim(), thumb: document.activeElement.classList.contains("thumb"), id: document.activeElement.id })') as Promise<{ tag: string; text: string; thumb: boolean; id: string }>;
    await page.keyboard.press('Tab');
    expect(await active()).toMatchObject({ tag: 'A', text: 'Skip to content' });
    await page.keyboard.press('Enter');
    expect(await active()).toMatchObject({ tag: 'MAIN', id: 'main' });
    let presses = 0;
    while (!(await active()).thumb && presses < 60) {
      await page.keyboard.press('Tab');
      presses++;
    }
    expect((await active()).thumb).toBe(true);
    const thumbs = await page.locator('button.thumb').count();
    expect(thumbs).toBeGreaterThan(1);
    await page.keyboard.press('ArrowRight');
    expect((await active()).thumb).toBe(true);
    await page.keyboard.press('Tab');
    expect((await active()).thumb).toBe(false);

    // Escape closes the notifications popover.
    await page.getByRole('button', { name: /^Notifications/ }).click();
    await page.getByRole('dialog', { name: 'Notifications' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Notifications' }).waitFor({ state: 'detached' });
  });
});
