import type { Page } from 'playwright-core';
import { createReadyDataset } from '../support/datasets';
import { evalPhotos } from '../support/evalPhotos';
import { photo } from '../support/media';
import { expectText, startWebApp, waitForLoadedImages, type WebApp } from '../support/webApp';

type Box = { x: number; y: number; width: number; height: number };
type ObjectCluster = { cluster_id: string; n_objects: number; previews: Array<{ file_name: string; caption: string | null; bounding_box: Box }> };
/** Where the page drew one object: its thumbnail's frame, its box, and what it says (in CSS pixels). */
type Drawn = { clusterId: string; index: number; title: string; frame: Box; box: Box; caption: string };

/** Every object thumbnail of the grid, as laid out. Browser code as a string: the root tsconfig has no DOM types. */
function drawnObjects(page: Page): Promise<Drawn[]> {
  return page.evaluate(`(() => {
    const rect = (element) => { const r = element.getBoundingClientRect(); return { x: r.left, y: r.top, width: r.width, height: r.height }; };
    return Array.from(document.querySelectorAll('ul[aria-label="Clusters"] > li')).flatMap((cluster) =>
      Array.from(cluster.querySelectorAll('button.thumb.object')).map((thumb, index) => ({
        clusterId: cluster.getAttribute('data-cluster-id'),
        index,
        title: thumb.getAttribute('title'),
        frame: rect(thumb.querySelector('.boxed')),
        box: rect(thumb.querySelector('[data-testid="bbox"]')),
        caption: thumb.querySelector('.object-caption').textContent,
      })),
    );
  })()`);
}

/** The web app on an enriched dataset: enrich from the dataset page, caption search, objects with their boxes, visual search by a drawn box. */
describe('web app: enrichment, captions and objects', () => {
  let web: WebApp;
  let enrichedId: string;
  let dogPhoto: string;

  beforeAll(async () => {
    web = await startWebApp();
  }, 120_000);
  afterAll(() => web?.close());

  it('enriches a dataset from its page: Coming Soon models disabled, a dependency chosen with its dependent, a link to the new dataset, its context once READY', async () => {
    const { stack, page, screenshot } = web;
    const scenes = evalPhotos('darknet-dog.jpg', 'darknet-kite.jpg');
    dogPhoto = scenes[0];
    const sourceId = await createReadyDataset(stack, 'scenes', [...scenes, photo('chelsea'), photo('coffee')]);
    await page.goto(`/datasets/${sourceId}`);
    const form = page.getByRole('form', { name: 'Enrich' });
    await form.waitFor();
    await expectText(page.getByTestId('enrichment-context'), /^No model applied yet \(context NEW\)\.$/);

    const model = (id: string) => form.locator(`label[data-model-id="${id}"]`);
    // What has no weights here is listed, disabled, with its status.
    expect(await model('clip@1').getByRole('radio').isDisabled()).toBe(true);
    expect(await model('clip@1').textContent()).toContain('Coming Soon');
    expect(await model('clip@1').getAttribute('title')).toMatch(/^Coming Soon: /);
    const submit = form.getByRole('button', { name: 'Enrich into a new dataset' });
    expect(await submit.isDisabled()).toBe(true);

    // Object captions need detected objects: choosing them chooses the detector, which cannot be unchosen meanwhile.
    await model('object-captioner@1').getByRole('radio').check();
    expect(await model('coco-centernet@1').getByRole('radio').isChecked()).toBe(true);
    const noDetector = form.locator('fieldset[data-type="OBJECT_DETECTION"]').getByRole('radio', { name: 'none' });
    expect(await noDetector.isDisabled()).toBe(true);
    await model('imagenet-tagger@1').getByRole('radio').check();
    await model('tag-captioner@1').getByRole('radio').check();
    await screenshot('enrich');
    await submit.click();

    const link = page.getByRole('status').getByRole('link', { name: 'scenes (enriched)' });
    await link.waitFor();
    // The source is READ ONLY while its copy is enriched.
    await page.locator('dl.facts').getByText(/READ ONLY|READY/).waitFor();
    await link.click();
    await page.getByRole('heading', { name: 'scenes (enriched)' }).waitFor();
    enrichedId = /\/datasets\/([0-9a-f-]{36})/.exec(page.url())![1];
    expect(enrichedId).not.toBe(sourceId);
    await page.locator('dl.facts').getByText('READY', { exact: true }).waitFor({ timeout: 240_000 });
    await expectText(page.getByTestId('enrichment-context'), /^Applied \(ENRICHED\): /);
    const context = (await page.getByTestId('enrichment-context').textContent())!;
    for (const applied of ['IMAGE_TAGGING imagenet-tagger@1', 'CAPTION_IMAGES tag-captioner@1', 'OBJECT_DETECTION coco-centernet@1', 'CAPTION_OBJECTS object-captioner@1']) {
      expect(context).toContain(applied);
    }
    // Applied types are no longer offered.
    expect(await form.locator('fieldset[data-type="IMAGE_TAGGING"]').textContent()).toContain('applied: imagenet-tagger@1');
    await screenshot('enriched');
    expect(web.pageErrors).toEqual([]);
  }, 360_000);

  it('finds the right photo first by a caption search in the browser', async () => {
    const { page, screenshot } = web;
    await page.goto(`/datasets/${enrichedId}/explore`);
    await page.getByRole('heading', { name: 'Explore scenes (enriched)' }).waitFor();
    for (const [query, file] of [
      ['a dog next to a bicycle', 'darknet-dog.jpg'],
      ['people flying kites on a beach', 'darknet-kite.jpg'],
      ['a cup of coffee', 'coffee.jpg'],
    ]) {
      await page.getByLabel('Caption search').fill(query);
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('status').filter({ hasText: `Captions matching “${query}”` }).waitFor();
      await waitForLoadedImages(page);
      expect([query, (await page.locator('button.thumb').first().getAttribute('title'))!.split(' — ')[0]]).toEqual([query, file]);
      if (file === 'darknet-dog.jpg') await screenshot('caption-search');
    }
    expect(web.pageErrors).toEqual([]);
  }, 120_000);

  it('shows objects with their boxes where the API puts them, counts them, and searches by a box drawn on an uploaded photo and by a clicked object', async () => {
    const { stack, page, screenshot } = web;
    await page.goto(`/datasets/${enrichedId}/explore`);
    // click, not check: the radio follows the URL, which React Router updates in a transition.
    await page.getByRole('radio', { name: 'Objects' }).click();
    await page.waitForURL(/entity_type=OBJECTS/);
    await page.locator('[data-testid="bbox"]').first().waitFor();
    await waitForLoadedImages(page);

    const clusters = (await stack.request.get(`/api/v1/explore/${enrichedId}`).query({ entity_type: 'OBJECTS', threshold: '0' }).expect(200)).body.clusters as ObjectCluster[];
    const drawn = await drawnObjects(page);
    expect(drawn.length).toBe(clusters.reduce((sum, cluster) => sum + cluster.previews.length, 0));
    expect(drawn.length).toBeGreaterThan(5);
    for (const object of drawn) {
      const preview = clusters.find((cluster) => cluster.cluster_id === object.clusterId)!.previews[object.index];
      expect(object.title).toContain(preview.file_name);
      expect(object.caption).toBe(preview.caption);
      const expected = preview.bounding_box;
      // The box's edges lie where the API's fractions of the thumbnail put them, within 1 px.
      const edges = (box: Box) => [box.x, box.y, box.x + box.width, box.y + box.height];
      const want = edges({
        x: object.frame.x + expected.x * object.frame.width,
        y: object.frame.y + expected.y * object.frame.height,
        width: expected.width * object.frame.width,
        height: expected.height * object.frame.height,
      });
      edges(object.box).forEach((edge, i) => expect(Math.abs(edge - want[i])).toBeLessThanOrEqual(1));
    }
    // Each cluster counts its objects as the API does.
    for (const cluster of clusters) {
      const card = page.locator(`li[data-cluster-id="${cluster.cluster_id}"]`);
      expect(await card.getAttribute('data-n-objects')).toBe(String(cluster.n_objects));
      expect(await card.locator('.cluster-head strong').textContent()).toMatch(new RegExp(`^${cluster.n_objects} objects? in \\d+ images?$`));
    }
    await screenshot('objects');

    // A photo of the user's with a box drawn around the dog: the nearest object is that dog.
    const dog = clusters.flatMap((cluster) => cluster.previews).find((preview) => preview.file_name === 'darknet-dog.jpg' && /dog/.test(preview.caption ?? ''))!;
    await page.getByLabel('Search with an image').setInputFiles(dogPhoto);
    const frame = page.getByTestId('draw-frame');
    await frame.locator('img').waitFor();
    await page.waitForFunction(`document.querySelector('[data-testid="draw-frame"] img').complete`);
    await frame.scrollIntoViewIfNeeded();
    const area = (await frame.boundingBox())!;
    const corner = (fx: number, fy: number) => [area.x + fx * area.width, area.y + fy * area.height] as const;
    await page.mouse.move(...corner(dog.bounding_box.x, dog.bounding_box.y));
    await page.mouse.down();
    await page.mouse.move(...corner(dog.bounding_box.x + dog.bounding_box.width, dog.bounding_box.y + dog.bounding_box.height), { steps: 8 });
    await page.mouse.up();
    const drawnBox = (await frame.getByTestId('bbox').boundingBox())!;
    expect(Math.abs(drawnBox.width - dog.bounding_box.width * area.width)).toBeLessThanOrEqual(3);
    await screenshot('draw-box');
    await page.getByRole('button', { name: 'Search in the box' }).click();
    await page.getByTestId('visual-search').filter({ hasText: 'Objects visually similar to the box drawn on your image darknet-dog.jpg' }).waitFor({ timeout: 60_000 });
    await page.waitForURL(/anchor_type=UPLOAD/);
    await waitForLoadedImages(page);
    const nearest = (await drawnObjects(page))[0];
    expect(nearest.title).toContain('darknet-dog.jpg');
    expect(nearest.caption).toMatch(/dog/);
    expect(await page.locator('.cluster-head .muted').first().textContent()).toMatch(/similarity (0\.9\d\d|1\.000)/);
    await screenshot('object-search');

    // A click on an object (a kite): objects like it, itself first.
    await page.getByRole('button', { name: 'Clear search' }).click();
    await page.waitForURL((url) => !url.search.includes('similar_to'));
    await waitForLoadedImages(page);
    const kite = page.locator('button.thumb.object', { hasText: /kite/ }).first();
    const kiteTitle = (await kite.getAttribute('title'))!;
    expect(kiteTitle).toContain('darknet-kite.jpg');
    await kite.click();
    await page.getByTestId('visual-search').filter({ hasText: /Objects visually similar to the object “.*kite.*” in darknet-kite\.jpg/ }).waitFor({ timeout: 60_000 });
    await waitForLoadedImages(page);
    const first = (await drawnObjects(page))[0];
    expect(first.title).toContain('darknet-kite.jpg');
    expect(first.caption).toMatch(/kite/);
    expect(web.pageErrors).toEqual([]);
  }, 180_000);
});
