import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createDb } from '../../db/connection';
import { seedMapPoints, seedSyntheticDataset } from '../../scripts/bench/syntheticDataset';
import { createReadyDataset } from '../support/datasets';
import { insidePolygon, lassoThrough, mapPage } from '../support/map';
import { photo, PHOTO_NAMES } from '../support/media';
import { expectText, startWebApp, type WebApp } from '../support/webApp';

/** The map page in headless Chromium against the real API and worker: drawn, lassoed, and the lassoed images tagged. */
describe('web app: dataset map', () => {
  let web: WebApp;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'web-map-'));

  beforeAll(async () => {
    web = await startWebApp();
    const copies = PHOTO_NAMES.map((name) => path.join(scratch, `${name}_small.jpg`));
    for (const [i, name] of PHOTO_NAMES.entries()) await sharp(photo(name)).resize(220).jpeg({ quality: 75 }).toFile(copies[i]);
    datasetId = await createReadyDataset(web.stack, 'mapped', [...PHOTO_NAMES.map(photo), ...copies]);
  }, 240_000);
  afterAll(async () => {
    await web?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('draws every image; a lasso round the left part selects exactly those points for tagging, and opens them in Explore', async () => {
    const { request } = web.stack;
    const summary = (await request.get(`/api/v1/dataset/${datasetId}/map`).expect(200)).body as { layout_id: string; count: number };
    const points = await mapPage(request.get(`/api/v1/dataset/${datasetId}/map/points`));
    expect(summary.count).toBe(PHOTO_NAMES.length * 2);
    // Split the points at the widest gap between their x positions near the middle, so no point lies near the lasso's edge.
    const xs = [...points.x].sort((a, b) => a - b);
    let cut = 0;
    let widest = -1;
    for (let i = 3; i < xs.length - 3; i++) {
      if (xs[i] - xs[i - 1] > widest) [widest, cut] = [xs[i] - xs[i - 1], (xs[i] + xs[i - 1]) / 2];
    }
    const left = [...points.x.keys()].filter((i) => points.x[i] < cut);
    const idOf = (await request.post(`/api/v1/dataset/${datasetId}/map/selection`).send({ layout_id: summary.layout_id, indices: [...points.x.keys()] }).expect(200)).body.media_ids as string[];
    const leftIds = left.map((i) => idOf[i]);

    const page = web.page;
    await page.goto(`/datasets/${datasetId}/map`);
    await page.locator(`.map-frame[data-state="drawn"][data-points="${summary.count}"]`).waitFor();
    await expectText(page.getByTestId('map-count'), new RegExp(`^${summary.count} points`));
    await page.getByRole('radio', { name: 'Lasso' }).check();
    const canvas = page.getByRole('img', { name: /^Map of/ });
    await canvas.scrollIntoViewIfNeeded();
    const box = (await canvas.boundingBox())!;
    // regl-scatterplot shows y from -1 to 1 over the canvas's height, centred, x at the same scale.
    const toScreenX = (x: number) => box.x + box.width / 2 + (x * box.height) / 2;
    const [x0, x1, y0, y1] = [box.x + 4, toScreenX(cut), box.y + 4, box.y + box.height - 4];
    const corners: Array<[number, number]> = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    await lassoThrough(page, corners.slice(1));
    await page.mouse.up();
    await web.screenshot('map-lassoed');

    await expectText(page.getByTestId('selection-size'), new RegExp(`^${left.length} lassoed images? selected$`));
    const bar = page.getByRole('region', { name: 'Selection' });
    await bar.getByLabel('Tag name').fill('left side');
    await bar.getByRole('button', { name: 'Tag', exact: true }).click();
    await expectText(bar.getByRole('status'), new RegExp(`^Tagged ${left.length} images? “left side”`));

    const tag = ((await request.get(`/api/v1/dataset/${datasetId}/tags`).expect(200)).body.tags as Array<{ id: string; name: string }>).find((t) => t.name === 'left side')!;
    const tagged = await web.stack.deps.db('media_tags').where({ tag_id: tag.id }).pluck('media_id');
    expect([...tagged].sort()).toEqual([...leftIds].sort());

    // Open in Explore: the region travels as a VQL map filter; the grid shows exactly the media whose points lie in its polygon.
    await page.getByRole('link', { name: new RegExp(`^Open the ${left.length} lassoed images? in Explore$`) }).click();
    await page.waitForURL(/\/explore\?/);
    const [{ map: region }] = JSON.parse(new URL(page.url()).searchParams.get('vql')!) as Array<{ map: { op: string; layout_id: string; polygon: Array<[number, number]> } }>;
    expect(region).toMatchObject({ op: 'within', layout_id: summary.layout_id });
    const inside = [...points.x.keys()].filter((i) => insidePolygon(points.x[i], points.y[i], region.polygon)).map((i) => idOf[i]);
    expect([...inside].sort()).toEqual([...leftIds].sort());
    await expectText(page.getByTestId('map-region-chip'), new RegExp(`^Map region \\(${left.length} points?\\)`));
    const grid = page.locator('[data-media-id]');
    await grid.nth(inside.length - 1).waitFor();
    const shown = await grid.evaluateAll((thumbs) => thumbs.map((thumb) => thumb.getAttribute('data-media-id')));
    expect([...shown].sort()).toEqual([...inside].sort());
    await web.screenshot('explore-map-region');

    await page.getByRole('button', { name: 'Remove the map region' }).click();
    await page.getByTestId('map-region-chip').waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('vql')).toBeNull();
    await grid.nth(inside.length).waitFor();
    expect(web.pageErrors).toEqual([]);
  });

  it('a lasso that ends where it began, on a point, selects what it encloses, not the point under its end (issue 51)', async () => {
    const { request } = web.stack;
    const summary = (await request.get(`/api/v1/dataset/${datasetId}/map`).expect(200)).body as { layout_id: string; count: number };
    const points = await mapPage(request.get(`/api/v1/dataset/${datasetId}/map/points`));
    const rightmost = [...points.x.keys()].reduce((best, i) => (points.x[i] > points.x[best] ? i : best), 0);
    const enclosed = [...points.x.keys()].filter((i) => points.x[i] < points.x[rightmost] - 0.05);
    const page = web.page;
    await page.goto(`/datasets/${datasetId}/map`);
    await page.locator(`.map-frame[data-state="drawn"][data-points="${summary.count}"]`).waitFor();
    await page.getByRole('radio', { name: 'Lasso' }).check();
    const canvas = page.getByRole('img', { name: /^Map of/ });
    await canvas.scrollIntoViewIfNeeded();
    const box = (await canvas.boundingBox())!;
    const toScreen = (x: number, y: number): [number, number] => [box.x + box.width / 2 + (x * box.height) / 2, box.y + box.height / 2 - (y * box.height) / 2];
    // From the rightmost point round every other one and back onto it: mouse down and up on a point, as a curator closes a loop.
    const start = toScreen(points.x[rightmost], points.y[rightmost]);
    const edge = toScreen(points.x[rightmost] - 0.05, 0)[0];
    const loop: Array<[number, number]> = [start, [edge, start[1]], [edge, box.y + 4], [box.x + 4, box.y + 4], [box.x + 4, box.y + box.height - 4], [edge, box.y + box.height - 4], [edge, start[1]], start];
    await page.mouse.move(...start);
    await page.mouse.down();
    await lassoThrough(page, loop.slice(1));
    await page.mouse.up();
    const size = page.getByTestId('selection-size');
    await expectText(size, /lassoed images? selected$/);
    const selected = Number((await size.textContent())!.replace(/[^\d]/g, ''));
    // Every enclosed point; the one under the loop's end lies on its edge, either way.
    expect(selected).toBeGreaterThanOrEqual(enclosed.length);
    expect(selected).toBeLessThanOrEqual(enclosed.length + 1);
    expect(web.pageErrors).toEqual([]);
  });

  it("takes Explore's filters: its Map link carries them, the map counts the points they keep and a lasso selects among those only", async () => {
    const { request } = web.stack;
    const summary = (await request.get(`/api/v1/dataset/${datasetId}/map`).expect(200)).body as { layout_id: string; count: number };
    const ids = (await request.post(`/api/v1/dataset/${datasetId}/map/selection`).send({ layout_id: summary.layout_id, indices: [...Array(summary.count).keys()] }).expect(200))
      .body.media_ids as string[];
    const tag = (await request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'kept by the filter' }).expect(201)).body as { id: string };
    const kept = ids.slice(0, 3);
    await request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ media_ids: kept }).expect(200);
    const vql = JSON.stringify([{ tags: { op: 'is', value: [tag.id] } }]);

    const page = web.page;
    await page.goto(`/datasets/${datasetId}/explore?${new URLSearchParams({ vql })}`);
    await page.locator('[data-media-id]').nth(kept.length - 1).waitFor();
    await page.getByRole('link', { name: 'Map', exact: true }).click();
    await page.waitForURL(/\/map\?/);
    expect(new URL(page.url()).searchParams.get('vql')).toBe(vql);
    await page.locator(`.map-frame[data-state="drawn"][data-points="${summary.count}"]`).waitFor();
    await expectText(page.getByTestId('map-filtered'), new RegExp(`^${kept.length} of ${summary.count} points match Explore's filters`));

    // A lasso round the whole map selects the kept points only, and Explore opens with the filters and the region.
    await page.getByRole('radio', { name: 'Lasso' }).check();
    const canvas = page.getByRole('img', { name: /^Map of/ });
    await canvas.scrollIntoViewIfNeeded();
    const box = (await canvas.boundingBox())!;
    const corners: Array<[number, number]> = [[box.x + 4, box.y + 4], [box.x + box.width - 4, box.y + 4], [box.x + box.width - 4, box.y + box.height - 4], [box.x + 4, box.y + box.height - 4], [box.x + 4, box.y + 4]];
    await page.mouse.move(...corners[0]);
    await page.mouse.down();
    await lassoThrough(page, corners.slice(1));
    await page.mouse.up();
    await expectText(page.getByTestId('selection-size'), new RegExp(`^${kept.length} lassoed images selected$`));
    await page.getByRole('link', { name: new RegExp(`^Open the ${kept.length} lassoed images in Explore$`) }).click();
    await page.waitForURL(/\/explore\?/);
    const elements = JSON.parse(new URL(page.url()).searchParams.get('vql')!) as Array<Record<string, unknown>>;
    expect(elements.map((element) => Object.keys(element)[0])).toEqual(['tags', 'map']);
    const grid = page.locator('[data-media-id]');
    await grid.nth(kept.length - 1).waitFor();
    expect((await grid.evaluateAll((thumbs) => thumbs.map((thumb) => thumb.getAttribute('data-media-id')))).sort()).toEqual([...kept].sort());

    // Show every point drops the filters.
    await page.goto(`/datasets/${datasetId}/map?${new URLSearchParams({ vql })}`);
    await page.getByRole('button', { name: 'Show every point' }).click();
    await page.getByTestId('map-filtered').waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('vql')).toBeNull();
    expect(web.pageErrors).toEqual([]);
  });

  it('draws an even sample of a big map while it moves (a drag, the wheel) and every point at rest, keeping the selection', async () => {
    const n = 25_000;
    // Seeded straight in Postgres (as bench:web-map does), on a connection without the API's statement timeout.
    const db = createDb(web.stack.env.DATABASE_URL!, 1);
    let big: string;
    try {
      const seeded = await seedSyntheticDataset(db, n, 4);
      await seedMapPoints(db, seeded.versionId, n);
      big = seeded.datasetId;
    } finally {
      await db.destroy();
    }
    const page = web.page;
    await page.goto(`/datasets/${big}/map`);
    const frame = page.locator('.map-frame');
    await page.locator(`.map-frame[data-state="drawn"][data-points="${n}"]`).waitFor({ timeout: 60_000 });
    expect(await frame.getAttribute('data-moving')).toBeNull();

    // A selection first (Shift and a drag lasso the left half), to see that moving keeps it.
    const canvas = page.getByRole('img', { name: /^Map of/ });
    await canvas.scrollIntoViewIfNeeded();
    const box = (await canvas.boundingBox())!;
    const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
    await page.keyboard.down('Shift');
    await page.mouse.move(box.x + 4, box.y + 4);
    await page.mouse.down();
    await lassoThrough(page, [[cx, box.y + 4], [cx, box.y + box.height - 4], [box.x + 4, box.y + box.height - 4], [box.x + 4, box.y + 4]]);
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const size = page.getByTestId('selection-size');
    await expectText(size, /^[\d,]+ lassoed images selected$/);
    const selected = await size.textContent();

    await page.mouse.move(cx, cy);
    await page.mouse.down();
    await page.mouse.move(cx + 40, cy + 30, { steps: 10 });
    await page.locator('.map-frame[data-moving="20000"]').waitFor();
    await page.mouse.move(cx + 80, cy + 10, { steps: 10 });
    expect(await frame.getAttribute('data-moving')).toBe('20000');
    await page.mouse.up();
    await page.locator('.map-frame:not([data-moving])').waitFor();

    await page.mouse.wheel(0, -200);
    await page.locator('.map-frame[data-moving="20000"]').waitFor();
    await page.locator('.map-frame:not([data-moving])').waitFor();
    expect(await size.textContent()).toBe(selected);
    expect(await frame.getAttribute('data-points')).toBe(String(n));
    expect(web.pageErrors).toEqual([]);
  }, 120_000);
});
