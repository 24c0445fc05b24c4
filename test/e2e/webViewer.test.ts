import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { createReadyDataset, newDatasetWithTransaction, uploadFiles } from '../support/datasets';
import { seedSyntheticDataset } from '../../scripts/bench/syntheticDataset';
import { makeVideo, photo, PHOTO_NAMES } from '../support/media';
import { startWebApp, waitForLoadedImages, type WebApp } from '../support/webApp';
import { storageCollectionWorkflowId } from '../../workflows/contracts';

/** Curation in the browser against the real API and worker: the full-screen viewer, the grid's density, renaming, confirmations. */
describe('web app curation', () => {
  let web: WebApp;
  let datasetId: string;

  beforeAll(async () => {
    web = await startWebApp();
    datasetId = await createReadyDataset(web.stack, 'curation', PHOTO_NAMES.map(photo));
  }, 180_000);
  afterAll(() => web?.close());

  const active = () =>
    web.page.evaluate('({ mediaId: document.activeElement.getAttribute("data-media-id"), inDialog: Boolean(document.activeElement.closest("dialog")) })') as Promise<{ mediaId: string | null; inDialog: boolean }>;

  it('opens an image full screen from the grid with the keyboard, goes next and back, zooms, shows the shortcuts, and Escape returns to its thumbnail', async () => {
    const { page } = web;
    await page.goto(`/datasets/${datasetId}/explore`);
    await waitForLoadedImages(page);
    const thumbs = page.locator('ul[aria-label="Clusters"] button.thumb');
    await thumbs.first().focus();
    await page.keyboard.press('ArrowRight');
    const second = (await active()).mediaId!;
    const secondName = (await thumbs.nth(1).getAttribute('title'))!.split('\n')[0];
    await page.keyboard.press('Enter');

    await page.getByRole('dialog', { name: secondName }).waitFor();
    // The dialog is named after the image it shows, which changes as it moves.
    const viewer = page.locator('dialog.viewer');
    expect(await active()).toMatchObject({ inDialog: true });
    await expectFacts(secondName);
    expect(await viewer.getByTestId('viewer-position').textContent()).toBe(`2 of ${PHOTO_NAMES.length}`);
    await page.keyboard.press('ArrowRight');
    await viewer.getByTestId('viewer-position').filter({ hasText: `3 of ${PHOTO_NAMES.length}` }).waitFor();
    const third = (await thumbs.nth(2).getAttribute('title'))!.split('\n')[0];
    await expectFacts(third);
    await page.keyboard.press('ArrowLeft');
    await expectFacts(secondName);

    const image = page.getByTestId('viewer-image');
    await page.keyboard.press('+');
    await page.keyboard.press('+');
    expect(await image.getAttribute('data-zoom')).toBe('2');
    expect(await viewer.getByTestId('viewer-zoom').textContent()).toBe('200%');
    const before = await image.evaluate((img) => img.style.transform);
    await page.keyboard.press('Shift+ArrowLeft');
    expect(await image.evaluate((img) => img.style.transform)).not.toBe(before);
    await page.keyboard.press('-');
    expect(await image.getAttribute('data-zoom')).toBe('1.5');
    await page.keyboard.press('0');
    expect(await image.getAttribute('data-zoom')).toBe('1');
    await viewer.getByRole('button', { name: 'Zoom in' }).click();
    expect(await image.getAttribute('data-zoom')).toBe('1.5');
    await image.hover();
    await page.mouse.wheel(0, 200);
    await page.waitForFunction('document.querySelector(\'[data-testid="viewer-image"]\').dataset.zoom === "1"');

    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    for (const shortcut of ['Open the image full screen', 'Next or previous image', 'Zoom in or out', 'Back to the whole image', 'Close the viewer']) {
      await help.getByText(shortcut, { exact: false }).waitFor();
    }
    await web.screenshot('viewer-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await viewer.waitFor();
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    await page.waitForFunction(`document.activeElement.getAttribute('data-media-id') === ${JSON.stringify(second)}`);
    // The grid keeps its one Tab stop on that thumbnail.
    expect(await thumbs.evaluateAll((buttons) => buttons.filter((button) => button.getAttribute('tabindex') === '0').map((button) => button.getAttribute('data-media-id')))).toEqual([second]);

    // The help sheet opens from the grid too, and Select mode still selects on a click.
    await page.keyboard.press('?');
    await help.waitFor();
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Select' }).click();
    await thumbs.first().click();
    expect(await thumbs.first().getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('button', { name: 'Done selecting' }).click();
    expect(web.pageErrors).toEqual([]);

    async function expectFacts(fileName: string) {
      await viewer.getByTestId('viewer-file').filter({ hasText: fileName }).waitFor();
      expect(await viewer.getByTestId('viewer-facts').textContent()).toMatch(/Size\d[\d.]* (KB|MB)Resolution\d+ × \d+CaptionnoneClassnoneHistoryModel labelsnoneTagsnoneIssues/);
    }
  }, 120_000);

  it('fits a tiny image to the whole stage, square-pixelled, and zooms beyond it (issue 51)', async () => {
    const { page } = web;
    // Every full-size file is a 28 × 28 image (as Fashion-MNIST's are), its thumbnail the real one.
    const tiny = await sharp({ create: { width: 28, height: 28, channels: 3, background: '#808080' } }).png().toBuffer();
    await page.route(/\/api\/v1\/media\/[^/]+\/file\?/, (route) => route.fulfill({ contentType: 'image/png', body: tiny }));
    try {
      await page.goto(`/datasets/${datasetId}/explore`);
      await waitForLoadedImages(page);
      await page.locator('ul[aria-label="Clusters"] button.thumb').first().click();
      const image = page.getByTestId('viewer-image');
      await page.waitForFunction('document.querySelector(\'[data-testid="viewer-image"]\').naturalWidth === 28');
      // The size drawn: object-fit contain within the element's box, then the zoom's scale.
      const drawn = () =>
        page.evaluate(`(() => {
          const img = document.querySelector('[data-testid="viewer-image"]');
          const fit = Math.min(img.clientWidth / img.naturalWidth, img.clientHeight / img.naturalHeight);
          return { width: img.naturalWidth * fit * Number(img.dataset.zoom), stage: img.parentElement.getBoundingClientRect().toJSON(), rendering: getComputedStyle(img).imageRendering };
        })()`) as Promise<{ width: number; stage: { width: number; height: number }; rendering: string }>;
      await page.waitForFunction('document.querySelector(\'[data-testid="viewer-image"]\').classList.contains("pixelated")');
      const fitted = await drawn();
      expect(fitted.width).toBeCloseTo(Math.min(fitted.stage.width, fitted.stage.height), 0);
      expect(fitted.width).toBeGreaterThan(300);
      expect(fitted.rendering).toBe('pixelated');
      for (let i = 0; i < 6; i++) await page.keyboard.press('+');
      expect(await image.getAttribute('data-zoom')).toBe('8');
      expect((await drawn()).width).toBeCloseTo(fitted.width * 8, 0);
      await web.screenshot('viewer-tiny-image');
      await page.keyboard.press('Escape');
      await page.locator('dialog.viewer').waitFor({ state: 'detached' });
    } finally {
      await page.unroute(/\/api\/v1\/media\/[^/]+\/file\?/);
    }
    expect(web.pageErrors).toEqual([]);
  });

  it('goes on from the last image of a page of results into the next page, and back', async () => {
    const { page } = web;
    // 130 images, each its own cluster at threshold 0: Explore's pages of 100 clusters make two pages.
    const { datasetId: paged } = await seedSyntheticDataset(web.stack.deps.db, 130, 4);
    await page.goto(`/datasets/${paged}/explore`);
    const thumbs = page.locator('ul[aria-label="Clusters"] button.thumb');
    await page.waitForFunction('document.querySelectorAll(\'ul[aria-label="Clusters"] button.thumb\').length === 100');
    // A thumbnail's title starts with its file name (then its caption, if any).
    const nameOf = async (index: number) => (await thumbs.nth(index).getAttribute('title'))!.split('\n')[0].split(' — ')[0];
    const lastOfFirst = await nameOf(99);
    await thumbs.nth(99).click();
    const viewer = page.locator('dialog.viewer');
    const position = viewer.getByTestId('viewer-position');
    await position.filter({ hasText: /^100 of 100$/ }).waitFor();
    await viewer.getByText('Next opens the next page of results.').waitFor();

    await page.keyboard.press('ArrowRight');
    await position.filter({ hasText: /^1 of 30$/ }).waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('1');
    const firstOfSecond = await nameOf(0);
    expect(firstOfSecond).not.toBe(lastOfFirst);
    await viewer.getByTestId('viewer-file').filter({ hasText: new RegExp(`^${firstOfSecond}$`) }).waitFor();
    await viewer.getByText('Previous opens the previous page of results.').waitFor();

    await viewer.getByRole('button', { name: '← Previous' }).click();
    await position.filter({ hasText: /^100 of 100$/ }).waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('0');
    await viewer.getByTestId('viewer-file').filter({ hasText: new RegExp(`^${lastOfFirst}$`) }).waitFor();

    // The last page's last image has nothing after it.
    await page.keyboard.press('ArrowRight');
    await position.filter({ hasText: /^1 of 30$/ }).waitFor();
    for (let i = 1; i < 30; i++) await page.keyboard.press('ArrowRight');
    await position.filter({ hasText: /^30 of 30$/ }).waitFor();
    expect(await viewer.getByRole('button', { name: 'Next →' }).isDisabled()).toBe(true);
    await viewer.getByText('The last image.').waitFor();
    await page.keyboard.press('Escape');
    await viewer.waitFor({ state: 'detached' });
    expect(web.pageErrors).toEqual([]);
  }, 120_000);

  it('fits more cards in a row when compact, and remembers the choice', async () => {
    const { page } = web;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`/datasets/${datasetId}/explore`);
    await waitForLoadedImages(page);
    const perRow = () =>
      page.evaluate(`(() => {
        const tops = Array.from(document.querySelectorAll('ul[aria-label="Clusters"] > li')).map((card) => Math.round(card.getBoundingClientRect().top));
        return tops.filter((top) => top === tops[0]).length;
      })()`) as Promise<number>;
    const comfortable = await perRow();
    await page.getByRole('radio', { name: 'Compact' }).check();
    await page.locator('ul.grid.density-compact').waitFor();
    const compact = await perRow();
    expect(compact).toBeGreaterThanOrEqual(2 * comfortable);
    await page.reload();
    await waitForLoadedImages(page);
    expect(await page.getByRole('radio', { name: 'Compact' }).isChecked()).toBe(true);
    expect(await perRow()).toBe(compact);
    await page.getByRole('radio', { name: 'Comfortable' }).check();
    await page.setViewportSize({ width: 1400, height: 1000 });
  }, 60_000);

  it('renames a dataset from its page', async () => {
    const { page } = web;
    await page.goto(`/datasets/${datasetId}`);
    await page.getByRole('button', { name: 'Rename' }).click();
    const field = page.getByLabel('New name');
    await field.fill('   ');
    expect(await page.getByRole('button', { name: 'Save name' }).isDisabled()).toBe(true);
    await page.getByText('A name needs at least one character.').waitFor();
    await field.fill('curated photos');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: 'curated photos', level: 1 }).waitFor();
    expect((await web.stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.display_name).toBe('curated photos');
    await page.goto('/');
    await page.getByRole('link', { name: 'curated photos', exact: true }).waitFor();
  });

  it('offers on the dataset page only what the API says may start now, each refusal in its words (issue 51 item 4)', async () => {
    const { page, stack } = web;
    const { datasetId: held } = await seedSyntheticDataset(stack.deps.db, 3, 4);
    const operationsOf = async () => (await stack.request.get(`/api/v1/dataset/${held}`).expect(200)).body.operations as Record<string, { can_start: boolean; refusal: string | null }>;
    const reasonOf = async (button: string) => {
      const id = await page.getByRole('button', { name: button, exact: true }).getAttribute('aria-describedby');
      return id ? page.locator(`#${id}`).textContent() : null;
    };

    await stack.deps.db('datasets').where({ id: held }).update({ status_new: 'PARTIAL INDEX' });
    let operations = await operationsOf();
    await page.goto(`/datasets/${held}`);
    await page.getByLabel('Export file name').fill('everything');
    const exportButton = page.getByRole('button', { name: 'Export', exact: true });
    await page.locator('#export-reason').filter({ hasText: operations.export.refusal! }).waitFor();
    expect(await exportButton.isDisabled()).toBe(true);
    expect(await reasonOf('Export')).toBe(operations.export.refusal);
    expect(await page.getByRole('button', { name: 'Reindex' }).isDisabled()).toBe(false);
    expect(await page.getByRole('button', { name: 'Create snapshot' }).isDisabled()).toBe(true); // unnamed yet
    expect(await page.getByRole('button', { name: 'Delete dataset' }).isDisabled()).toBe(false);

    // While a task holds it (READ ONLY), neither a batch, a reindex, a snapshot nor a delete: each button says why.
    await stack.deps.db('datasets').where({ id: held }).update({ status_new: 'READ ONLY' });
    operations = await operationsOf();
    await page.reload();
    await page.locator('#delete-reason').filter({ hasText: operations.delete.refusal! }).waitFor();
    await page.getByLabel('Snapshot name').fill('now');
    for (const [button, operation] of [['Delete dataset', 'delete'], ['Reindex', 'reindex'], ['Create snapshot', 'snapshot'], ['Export', 'export']] as const) {
      expect(await page.getByRole('button', { name: button, exact: true }).isDisabled()).toBe(true);
      expect(await reasonOf(button)).toBe(operations[operation].refusal);
    }
    expect(await page.getByText(operations.add_media.refusal!).count()).toBe(1);
    expect(web.pageErrors).toEqual([]);
  });

  it('says what "select all" holds, images and video frames, counted before tagging (issue 51 item 7)', async () => {
    const { page, stack } = web;
    const mixed = await createReadyDataset(stack, 'mixed', [photo('chelsea'), photo('coffee'), makeVideo(3)]);
    const kinds = Object.fromEntries(
      ((await stack.deps.db('media').join('datasets as d', 'd.head_version_id', 'media.version_id').where('d.id', mixed).groupBy('kind').select('kind').count('* as n')) as Array<{ kind: string; n: string }>).map(
        (row) => [row.kind, Number(row.n)],
      ),
    );
    const frames = kinds.VIDEO_FRAME;
    expect(kinds.IMAGE).toBe(2);
    expect(frames).toBeGreaterThan(0);
    await page.goto(`/datasets/${mixed}/explore`);
    await waitForLoadedImages(page);
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    await page.getByRole('button', { name: 'Select all images and video frames' }).click();
    const bar = page.getByRole('region', { name: 'Selection' });
    await bar.getByTestId('selection-size').filter({ hasText: /^every image and video frame selected$/ }).waitFor();
    await bar.getByTestId('selection-count').filter({ hasText: `${2 + frames} items: 2 images, ${frames} video frame${frames === 1 ? '' : 's'}` }).waitFor();
    await bar.getByLabel('Tag name').fill('all of it');
    await bar.getByRole('button', { name: 'Tag', exact: true }).click();
    await bar.getByRole('status').filter({ hasText: new RegExp(`^Tagged ${2 + frames} items “all of it”`) }).waitFor();
    expect(web.pageErrors).toEqual([]);
  }, 120_000);

  it('deletes a dataset from its page after a confirmation; Cancel keeps it', async () => {
    const { page, stack } = web;
    const doomed = await createReadyDataset(stack, 'to delete', [photo('rocket')]);
    await page.goto(`/datasets/${doomed}`);
    await page.getByRole('button', { name: 'Delete dataset' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “to delete”?' });
    await dialog.getByText('This cannot be undone.').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await stack.request.get(`/api/v1/dataset/${doomed}`).expect(200);

    await page.getByRole('button', { name: 'Delete dataset' }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/');
    // The list has loaded (this file's other dataset is in it, renamed or not) without the deleted one.
    await page.getByRole('link', { name: /^(curation|curated photos)$/ }).waitFor();
    expect(await page.getByRole('link', { name: 'to delete', exact: true }).count()).toBe(0);
    await stack.request.get(`/api/v1/dataset/${doomed}`).expect(404);
    // The delete started the storage collector on this file's queue: end it with the file.
    await stack.deps.temporal.workflow.getHandle(storageCollectionWorkflowId(stack.deps.config.temporal.taskQueue)).terminate();
  }, 120_000);

  it('asks before aborting a task: Cancel leaves it running', async () => {
    const { page, stack } = web;
    // A long video keeps the creation running long enough.
    const video = makeVideo(60);
    const { datasetId: running, transId } = await newDatasetWithTransaction(stack, 'to abort');
    await uploadFiles(stack, running, transId, [video]).expect(202);
    fs.rmSync(path.dirname(video), { recursive: true, force: true });
    await stack.request.post(`/api/v1/ingestion/${running}/process_files/${transId}`).expect(202);
    await page.goto(`/tasks?dataset_id=${running}`);
    const task = page.locator('tr[data-task-type="DATASET_CREATION"]');
    await task.getByTestId('task-status').filter({ hasText: /INITIALIZING|RUNNING/ }).waitFor();
    // A disabled control says why beside it.
    await task.getByText(/^Retry: Task is [A-Z]+; only FAILED or ABORTED tasks can be retried$/).waitFor();
    await task.getByRole('button', { name: 'Abort' }).click();
    const confirm = page.getByRole('dialog', { name: 'Abort this DATASET_CREATION task?' });
    await confirm.getByText('Processing of “to abort” stops').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    const { tasks } = (await stack.request.get('/api/v1/tasks').query({ dataset_id: running }).expect(200)).body;
    expect(['INITIALIZING', 'RUNNING']).toContain(tasks[0].status);
    await task.getByRole('button', { name: 'Abort' }).click();
    await confirm.getByRole('button', { name: 'Abort the task' }).click();
    await task.getByTestId('task-status').filter({ hasText: 'ABORTED' }).waitFor({ timeout: 60_000 });
    expect(web.pageErrors).toEqual([]);
  }, 120_000);
});
