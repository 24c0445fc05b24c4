import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { localPublicUrl, screenshotsDir, serveOverHttp } from '../support/browser';
import { createReadyDataset, newDatasetWithTransaction, uploadFiles } from '../support/datasets';
import { eventually, makeVideo, photo, PHOTO_NAMES } from '../support/media';
import { startTestApi } from '../support/testStack';
import { choose, expectText, shownMediaIds, startWebApp, waitForLoadedImages, type WebApp } from '../support/webApp';

/** The built web app in headless Chromium against the real API and worker: create, explore, search, tasks. */
describe('web app', () => {
  let web: WebApp;
  let stack: WebApp['stack'];
  let browser: Browser;
  let page: Page;
  let pageErrors: string[];

  beforeAll(async () => {
    // Uploads over 1 MiB are refused with 413, so a page can meet a refusal from the API itself.
    web = await startWebApp({ MAX_UPLOAD_FILE_MB: '1', TEMPORAL_UI_URL: 'http://temporal-ui.example:8233' });
    ({ stack, browser, page, pageErrors } = web);
  }, 120_000);

  afterAll(() => web?.close());

  const screenshot = (name: string) => web.screenshot(name);

  it('creates a dataset by uploading photos, sees it READY, explores it, searches by an image and finds its task COMPLETED', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Datasets', exact: true }).waitFor();
    const icon = await page.request.get(await page.locator('link[rel="icon"]').getAttribute('href').then((href) => href!));
    expect([icon.status(), icon.headers()['content-type']]).toEqual([200, 'image/svg+xml']);

    // A dropped file of a type the API refuses is named with its reason and never sent.
    await page.getByTestId('dropzone').dispatchEvent('drop', {
      // Browser code as a string: the root tsconfig has no DOM types.
      dataTransfer: await page.evaluateHandle(`(() => {
        const transfer = new DataTransfer();
        transfer.items.add(new File(['not media'], 'notes.txt', { type: 'text/plain' }));
        return transfer;
      })()`),
    });
    const refused = page.locator('li.file[data-state="refused"]');
    await expectText(refused, /notes\.txt.*refused: not uploaded: only .*\.jpg/);

    await page.getByLabel('Name').fill('browser photos');
    // A file the API refuses (413, naming it) in the same batch: it is marked with the API's detail and the rest sent again.
    const tooLarge = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'web-upload-')), 'too_large.png');
    fs.writeFileSync(tooLarge, Buffer.alloc(1536 * 1024));
    await page.getByLabel('Files', { exact: true }).setInputFiles([...PHOTO_NAMES.slice(0, 4).map(photo), tooLarge, ...PHOTO_NAMES.slice(4).map(photo)]);
    fs.rmSync(path.dirname(tooLarge), { recursive: true, force: true });
    const create = page.getByRole('button', { name: `Create dataset with ${PHOTO_NAMES.length + 1} files` });
    await create.click();
    await page.getByRole('status').filter({ hasText: `${PHOTO_NAMES.length} files uploaded; indexing started.` }).waitFor({ timeout: 60_000 });
    expect(await page.locator('li.file[data-state="uploaded"]').count()).toBe(PHOTO_NAMES.length);
    expect(await refused.allTextContents()).toEqual([
      expect.stringMatching(/notes\.txt.*refused: not uploaded/),
      // The API answers 413 and closes the connection; a browser still sending reports no answer, and the page says so.
      expect.stringMatching(/too_large\.png.*refused: (File too_large\.png exceeds 1048576 bytes|the API closed the connection before answering)/),
    ]);
    expect(await page.locator('li.file[data-state="uploaded"] progress').evaluateAll((bars) => bars.map((bar) => (bar as unknown as { value: number }).value))).toEqual(
      PHOTO_NAMES.map(() => 1),
    );

    // The list polls until the creation ends.
    const row = page.locator('table[aria-label="Datasets"] tr', { hasText: 'browser photos' });
    await row.getByTestId('dataset-status').filter({ hasText: 'READY' }).waitFor({ timeout: 180_000 });
    expect(await row.locator('td').nth(2).textContent()).toBe(String(PHOTO_NAMES.length));
    await screenshot('datasets');

    await row.getByRole('link', { name: 'Explore' }).click();
    await page.getByRole('heading', { name: 'Explore browser photos' }).waitFor();
    const thumbnails = page.locator('ul[aria-label="Clusters"] img');
    await thumbnails.first().waitFor();
    expect(await thumbnails.count()).toBe(PHOTO_NAMES.length);
    await waitForLoadedImages(page);
    await screenshot('explore');

    // Another threshold: the grid answers for it (the same 8 photos, however they cluster).
    await page.getByLabel('Similarity threshold').fill('4');
    await page.getByTestId('threshold-value').filter({ hasText: '4' }).waitFor();
    await page.waitForURL(/threshold=4/);
    await waitForLoadedImages(page);

    // Filters from the controls, shown as the VQL the API gets: no photo is broken, every one has some uniqueness.
    await page.getByLabel('Issue', { exact: true }).selectOption('broken');
    await page.getByTestId('vql-text').filter({ hasText: '[{"issues":{"op":"issue","value":"broken","mode":"in"}}]' }).waitFor();
    await page.getByText('No cluster on this page.').waitFor();
    await page.getByLabel('Issue', { exact: true }).selectOption('');
    // click, not check: the box follows the URL, which React Router updates in a transition, after check's own test.
    await page.getByTestId('vql-text').filter({ hasText: 'none' }).waitFor();
    await page.getByRole('checkbox', { name: /Uniqueness/ }).click();
    await page.getByTestId('vql-text').filter({ hasText: '[{"uniqueness":{"op":"uniqueness","value":0.5}}]' }).waitFor();
    await page.waitForURL(/vql=/);
    await waitForLoadedImages(page);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByTestId('vql-text').filter({ hasText: 'none' }).waitFor();
    await waitForLoadedImages(page);
    expect(await thumbnails.count()).toBe(PHOTO_NAMES.length);

    // The keyboard: focus the first image, move right, and the details follow; Enter is the click below.
    await page.locator('button.thumb').first().focus();
    const firstName = await page.getByTestId('details-file').textContent();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByTestId('details-file').textContent()).not.toBe(firstName);
    expect(await page.locator('button.thumb').nth(1).evaluate((thumb) => thumb === thumb.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByTestId('details-file').textContent()).toBe(firstName);

    // Open an image, then a visual search from it: nearest (itself, similarity 1) first.
    const first = page.locator('button.thumb').first();
    const fileName = (await first.getAttribute('title'))!.split('\n')[0];
    await first.click();
    await page.getByRole('dialog', { name: fileName }).getByRole('button', { name: 'Find similar images' }).click();
    await page.getByTestId('visual-search').filter({ hasText: fileName }).waitFor();
    await page.locator('.cluster-head', { hasText: 'similarity' }).first().waitFor();
    expect(await page.locator('.cluster-head .muted').first().textContent()).toMatch(/similarity (0\.9\d\d|1\.000)/);
    expect(await page.locator('button.thumb').first().getAttribute('title')).toContain(fileName);
    await waitForLoadedImages(page);
    await screenshot('visual-search');

    // An image of the user's: staged, encoded on the inference queue, then the same search from it.
    await page.getByLabel('Search with an image').setInputFiles(photo('rocket'));
    await page.getByRole('button', { name: 'Search with the whole image' }).click();
    await page.getByTestId('visual-search').filter({ hasText: 'your image rocket.jpg' }).waitFor({ timeout: 60_000 });
    await page.waitForURL(/anchor_type=UPLOAD/);
    await waitForLoadedImages(page);
    expect(await page.locator('button.thumb').first().getAttribute('title')).toContain('rocket.jpg');
    expect(await page.locator('.cluster-head .muted').first().textContent()).toMatch(/similarity (0\.9\d\d|1\.000)/);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
    const task = page.locator('tr[data-task-type="DATASET_CREATION"]', { hasText: 'browser photos' });
    await task.getByTestId('task-status').filter({ hasText: 'COMPLETED' }).waitFor();
    expect(await task.getByRole('button', { name: 'Abort' }).isDisabled()).toBe(true);
    expect(await task.getByRole('button', { name: 'Abort' }).getAttribute('title')).toBe('Task is COMPLETED and cannot be aborted');
    expect(await task.getByRole('button', { name: 'Retry' }).isDisabled()).toBe(true);
    const taskId = await task.getAttribute('data-task-id');
    expect(await task.getByRole('link', { name: 'Workflow' }).getAttribute('href')).toBe(`http://temporal-ui.example:8233/namespaces/default/workflows/${taskId}`);
    await screenshot('tasks');

    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('takes a snapshot of a dataset, clones it into a new dataset and restores it, following both tasks on the filtered Tasks page', async () => {
    const datasetId = await createReadyDataset(stack, 'snapshot source', [photo('chelsea'), photo('coffee'), photo('rocket')]);
    await page.goto(`/datasets/${datasetId}`);
    await page.getByRole('heading', { name: 'snapshot source' }).waitFor();
    const snapshots = page.locator('table[aria-label="Snapshots"] tbody tr');
    // The first full index leaves a snapshot of reason creation.
    await snapshots.filter({ hasText: 'creation' }).waitFor();

    await page.getByLabel('Snapshot name').fill('three photos');
    await page.getByLabel('Snapshot description').fill('before any edit');
    await page.getByRole('button', { name: 'Create snapshot' }).click();
    await page.getByRole('status').filter({ hasText: 'Snapshot “three photos” created.' }).waitFor();
    const taken = snapshots.filter({ hasText: 'three photos' });
    await taken.filter({ hasText: 'current' }).waitFor();
    expect(await taken.textContent()).toContain('3 images, 0 videos');

    await taken.getByRole('button', { name: 'Clone' }).click();
    // The clone's notice lasts as long as its task, then names the new dataset (a clone of three photos may end before its first words show).
    const cloned = page.getByTestId('task-notice').filter({ hasText: 'Cloned “three photos” into snapshot source (cloned).' });
    await cloned.waitFor({ timeout: 60_000 });
    expect(await cloned.getAttribute('data-task-status')).toBe('COMPLETED');
    expect(await cloned.textContent()).not.toContain('Cloning');
    await taken.getByRole('button', { name: 'Restore' }).click();
    const confirmRestore = page.getByRole('dialog', { name: 'Restore “three photos”?' });
    expect(await confirmRestore.textContent()).toContain('Restore replaces all current data (media, metadata, enrichment, clustering, tags, labels) and cannot be undone.');
    expect(await confirmRestore.textContent()).toContain('views saved since it was taken are deleted');
    await confirmRestore.getByRole('button', { name: 'Restore' }).click();
    await confirmRestore.waitFor({ state: 'detached' });
    // The restore's notice lasts while it runs (a restore of three photos may end before the notice shows): the tasks below tell.
    await screenshot('snapshots');

    // The Tasks page filtered by type from its controls: both tasks complete.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
    const filters = page.getByRole('form', { name: 'Task filters' });
    for (const type of ['SNAPSHOT_CLONE', 'SNAPSHOT_RESTORE']) {
      await filters.getByLabel('Task type', { exact: true }).selectOption(type);
      await page.waitForURL(new RegExp(`task_type=${type}`));
      const rows = page.locator('table[aria-label="Tasks"] tbody tr');
      // The previous filter's rows stay until the new answer replaces them.
      await rows.locator(`xpath=self::*[not(@data-task-type="${type}")]`).first().waitFor({ state: 'detached' });
      await rows.first().getByTestId('task-status').filter({ hasText: 'COMPLETED' }).waitFor({ timeout: 60_000 });
      expect(await rows.evaluateAll((found) => found.map((row) => row.getAttribute('data-task-type')))).toEqual([type]);
      expect(await rows.first().getByRole('button', { name: 'Abort' }).getAttribute('title')).toBe(`Only DATASET_CREATION tasks can be aborted (this is ${type})`);
    }

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Datasets' }).click();
    const clone = page.locator('table[aria-label="Datasets"] tr', { hasText: 'snapshot source (cloned)' });
    await clone.getByTestId('dataset-status').filter({ hasText: 'READY' }).waitFor({ timeout: 60_000 });
    expect(await clone.locator('td').nth(2).textContent()).toBe('3');
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('adds photos to a READY dataset from its page, which turns PARTIAL INDEX, reindexes it to READY and exports it (Parquet with the images, YOLO)', async () => {
    const datasetId = await createReadyDataset(stack, 'growing', [photo('chelsea'), photo('coffee')]);
    await page.goto(`/datasets/${datasetId}`);
    await page.getByRole('heading', { name: 'growing' }).waitFor();
    await page.getByLabel('Media files').setInputFiles([photo('astronaut'), photo('camera')]);
    await page.getByRole('button', { name: 'Add to dataset' }).click();
    const notice = page.getByTestId('task-notice');
    await notice.filter({ hasText: 'Batch accepted: the dataset is READ ONLY while the MEDIA_ADDITION task runs.' }).waitFor();
    const facts = page.locator('dl.facts');
    await facts.getByText('PARTIAL INDEX', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await facts.textContent()).toContain('4 images, 0 videos');
    // The notice ends with its task: it says what came of it, no longer that the dataset is read only.
    await notice.filter({ hasText: 'The batch was added' }).waitFor({ timeout: 30_000 });
    expect(await notice.textContent()).not.toContain('READ ONLY');
    await page.getByRole('button', { name: 'Reindex' }).click();
    await facts.getByText('READY', { exact: true }).waitFor({ timeout: 60_000 });
    await notice.filter({ hasText: 'Reindexed: the dataset is READY.' }).waitFor({ timeout: 30_000 });

    // An export of the whole dataset, with its images: listed from its EXPORT task, then downloadable.
    await page.getByLabel('Export format').selectOption('parquet');
    await page.getByRole('checkbox', { name: 'with the images' }).check();
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const exported = page.locator('table[aria-label="Exports"] tbody tr').first();
    await exported.getByTestId('export-status').filter({ hasText: 'COMPLETED' }).waitFor({ timeout: 60_000 });
    const download = await exported.getByRole('link', { name: 'Download ZIP' }).getAttribute('href');
    const zip = Buffer.from(await (await fetch(download!)).arrayBuffer());
    expect(zip.subarray(0, 2).toString()).toBe('PK');
    expect(zip.includes('metadata.parquet')).toBe(true);

    // YOLO always carries the images: the box shows it and cannot be unticked.
    await page.getByLabel('Export format').selectOption('yolo');
    const withImages = page.getByRole('checkbox', { name: 'with the images' });
    expect([await withImages.isChecked(), await withImages.isDisabled()]).toEqual([true, true]);
    await page.getByLabel('Export format').selectOption('json');
    expect(await withImages.isDisabled()).toBe(false);
    await page.getByLabel('Export format').selectOption('yolo');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const yolo = page.locator('table[aria-label="Exports"] tbody tr', { hasText: 'YOLO' }).first();
    await yolo.getByTestId('export-status').filter({ hasText: 'COMPLETED' }).waitFor({ timeout: 60_000 });
    const yoloZip = Buffer.from(await (await fetch((await yolo.getByRole('link', { name: 'Download ZIP' }).getAttribute('href'))!)).arrayBuffer());
    expect(['data.yaml', 'labels/chelsea.txt', 'images/chelsea.jpg'].map((name) => yoloZip.includes(name))).toEqual([true, true, true]);
    await screenshot('dataset');
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('saves a view with alerting from Explore; a batch added meanwhile rings the bell live and marks the trend; opening the notification reads it and shows the batch (issue 51)', async () => {
    const datasetId = await createReadyDataset(stack, 'watched', [photo('chelsea'), photo('coffee')]);
    await page.goto(`/datasets/${datasetId}/explore`);
    await page.getByRole('heading', { name: 'Explore watched' }).waitFor();
    await expectText(page.getByTestId('unread-count'), /^0$/);
    await page.getByLabel('View name').fill('everything');
    await page.getByRole('button', { name: 'Save view' }).click();
    const view = page.locator('ul.views li', { hasText: 'everything' });
    await view.getByText('No batch since this view was saved.').waitFor();
    // The box shows the view as the API last answered, so each click shows after the refetch: off, then on again.
    const alert = view.getByRole('checkbox', { name: 'Alert me' });
    const alerting = (on: boolean) => page.waitForFunction(`document.querySelector('ul.views li input[type=checkbox]')?.checked === ${on}`);
    if (!(await alert.isChecked())) {
      await alert.click();
      await alerting(true);
    }
    await alert.click();
    await alerting(false);
    await alert.click();
    await alerting(true);

    // Added by another client: only the SSE stream can tell this page.
    await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('files', photo('camera')).attach('files', photo('rocket')).expect(202);
    await page.getByTestId('unread-count').filter({ hasText: /^1$/ }).waitFor({ timeout: 90_000 });
    await view.getByRole('img', { name: 'Trend: 2 per batch' }).waitFor();
    await page.getByRole('button', { name: /Notifications, 1 unread/ }).click();
    const notification = page.getByTestId('notification').first();
    await expectText(notification, /2 new results for view "everything" in watched/);
    await screenshot('notification');
    // Opening it reads it, and shows the two new matches it announced, not the view's every match.
    const [{ batch_id: batchId }] = (await stack.request.get('/api/v1/notifications').expect(200)).body.notifications.map((n: { metadata: { batch_id: string } }) => n.metadata);
    const added = ((await stack.deps.db('media').where({ batch_id: batchId }).pluck('id')) as string[]).sort();
    expect(added).toHaveLength(2);
    await notification.getByRole('link', { name: /2 new results for view "everything"/ }).click();
    await page.waitForURL((url) => url.searchParams.get('batch') === batchId);
    await page.getByTestId('unread-count').filter({ hasText: /^0$/ }).waitFor();
    expect((await stack.request.get('/api/v1/notifications/unread-count').expect(200)).body.count).toBe(0);
    await page.getByTestId('batch-chip').waitFor();
    await eventually(() => shownMediaIds(page), (ids) => JSON.stringify(ids) === JSON.stringify(added), 15_000, 'the batch only');
    await page.getByRole('button', { name: 'Show the matches of every batch' }).click();
    await eventually(() => shownMediaIds(page), (ids) => ids.length === 4, 15_000, 'every match');
    expect(pageErrors).toEqual([]);
  }, 180_000);

  it('opens a saved view (from its list and from its notification) with its filters, renames it and deletes it after a confirmation', async () => {
    const datasetId = await createReadyDataset(stack, 'viewed', [photo('chelsea'), photo('coffee')]);
    const vql = JSON.stringify([{ issues: { op: 'issue', value: 'dark', mode: 'in' } }]);
    const view = (await stack.request.post(`/api/v1/dataset/${datasetId}/views`).query({ vql, caption: 'a cat' }).field('name', 'dark cats').expect(200)).body;
    await stack.deps.db('notifications').insert({
      user_id: stack.deps.defaultUser.id, entity_type: 'saved_view', entity_id: view.id, title: '', message: '1 new result for view "dark cats" in viewed', metadata: {}, dataset_id: datasetId,
    });
    const opened = async () => {
      // Explore may write its own query (paging, threshold) before the click lands: wait for the view's.
      await page.waitForURL((u) => u.pathname.endsWith('/explore') && u.searchParams.has('caption'));
      const url = new URL(page.url());
      expect([url.searchParams.get('caption'), JSON.parse(url.searchParams.get('vql')!)]).toEqual(['a cat', JSON.parse(vql)]);
      await page.getByText('Captions matching “a cat”, nearest first.').waitFor();
    };
    await page.goto(`/datasets/${datasetId}/explore`);
    await page.getByRole('button', { name: /^Notifications/ }).click();
    await page.getByTestId('notification').first().getByRole('link', { name: /dark cats/ }).click();
    await opened();

    await page.goto(`/datasets/${datasetId}/explore`);
    const row = page.locator(`ul.views li[data-view-id="${view.id}"]`);
    await row.getByRole('link', { name: 'Open' }).click();
    await opened();

    await row.getByRole('button', { name: 'Rename' }).click();
    await row.getByLabel('New name of dark cats').fill('dim cats');
    await row.getByRole('button', { name: 'Save name' }).click();
    await row.getByText('dim cats', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete' }).click();
    await row.waitFor({ state: 'detached' });
    expect(await stack.deps.db('saved_views').where({ dataset_id: datasetId })).toEqual([]);
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('reviews duplicates: keeps the suggested copy, remembers the decision across a reload, undoes it, and accepts all suggestions', async () => {
    const copies = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dupes-'));
    const copy = path.join(copies, 'chelsea_small.jpg');
    await sharp(photo('chelsea')).resize(240).jpeg({ quality: 70 }).toFile(copy);
    const datasetId = await createReadyDataset(stack, 'dupes', [photo('chelsea'), copy, photo('coffee')]);
    fs.rmSync(copies, { recursive: true, force: true });
    await page.goto(`/datasets/${datasetId}`);
    await page.getByRole('link', { name: 'Duplicates' }).click();
    const groups = page.locator('ul[aria-label="Duplicate groups"] > li');
    await groups.first().waitFor();
    expect(await groups.count()).toBe(1);
    const group = groups.first();
    // The suggested keeper is the full-size original, and the page says why.
    await expectText(group.locator('.badge.suggested'), /^suggested: more pixels: \d+×\d+ over 240×\d+/);
    expect(await group.getByRole('checkbox', { name: 'keep chelsea.jpg', exact: true }).isChecked()).toBe(true);
    expect(await group.getByRole('checkbox', { name: 'keep chelsea_small.jpg', exact: true }).isChecked()).toBe(false);
    await screenshot('duplicates');
    await group.getByRole('button', { name: 'Keep this copy, discard the rest' }).click();
    await page.getByText('No group here at this similarity.').waitFor();

    // Decided, and still so after a reload: the decision is stored with the dataset.
    await page.reload();
    await choose(page.getByRole('radio', { name: /^Decided/ }));
    const decided = page.locator('ul[aria-label="Duplicate groups"] > li').first();
    await expectText(decided.locator('.dup-summary'), /^Decided/);
    expect((await decided.locator('.dup-item .badge').allTextContents()).sort()).toEqual(['discarded', 'kept']);
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/tags`).expect(200)).body.tags).toEqual([]);
    await decided.getByRole('button', { name: 'Undo decision' }).click();
    await page.getByText('No group here at this similarity.').waitFor();

    await choose(page.getByRole('radio', { name: /^To review/ }));
    // Accept all shows what it will do first: the group, the copy it keeps and the one it discards.
    await page.getByRole('button', { name: 'Accept all suggestions' }).click();
    const preview = page.getByRole('region', { name: 'Accept all preview' });
    await expectText(preview.getByTestId('accept-summary'), /^Keeps the suggested copy of 1 group and discards 1 copy\./);
    await preview.getByRole('img', { name: 'keeps chelsea.jpg' }).waitFor();
    await preview.getByRole('img', { name: 'discards chelsea_small.jpg' }).waitFor();
    await screenshot('duplicates-accept-preview');
    await preview.getByRole('button', { name: 'Yes, decide 1' }).click();
    await expectText(page.getByRole('status'), /^Decided 1 group; 1 copy discarded\.$/);
    const review = (await stack.request.get(`/api/v1/dataset/${datasetId}/duplicates`).query({ state: 'decided' }).expect(200)).body;
    expect(review.groups[0].members.map((member: { file_name: string; role: string }) => [member.file_name, member.role]).sort()).toEqual([
      ['chelsea.jpg', 'keep'],
      ['chelsea_small.jpg', 'discard'],
    ]);
    // One undo takes the whole Accept all back.
    await page.getByRole('button', { name: 'Undo accept all' }).click();
    await page.locator('ul[aria-label="Duplicate groups"] > li').first().waitFor();
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/duplicates`).expect(200)).body.counts).toEqual({ open: 1, changed: 0, decided: 0 });
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('selects images in Explore (click, Shift-click range, a whole cluster), tags and untags them, exports the selection, and Escape clears it', async () => {
    const datasetId = await createReadyDataset(stack, 'curate', ['chelsea', 'coffee', 'astronaut', 'rocket'].map(photo));
    await page.goto(`/datasets/${datasetId}/explore`);
    await waitForLoadedImages(page);
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    const thumbs = page.locator('ul[aria-label="Clusters"] button.thumb');
    await thumbs.nth(0).click();
    await thumbs.nth(2).click({ modifiers: ['Shift'] });
    await expectText(page.getByTestId('selection-size'), /^3 images selected$/);
    expect(await thumbs.evaluateAll((buttons) => buttons.map((button) => button.getAttribute('aria-pressed')))).toEqual(['true', 'true', 'true', 'false']);
    const bar = page.getByRole('region', { name: 'Selection' });
    await bar.getByLabel('Tag name').fill('keepers');
    await bar.getByRole('button', { name: 'Tag', exact: true }).click();
    await expectText(bar.getByRole('status'), /^Tagged 3 images “keepers”\.$/);
    const tags = async () => (await stack.request.get(`/api/v1/dataset/${datasetId}/tags`).expect(200)).body.tags.map((tag: { name: string; n_media: number }) => [tag.name, tag.n_media]);
    expect(await tags()).toEqual([['keepers', 3]]);
    await screenshot('explore-selection');

    await page.keyboard.press('Escape');
    await expectText(page.getByTestId('selection-size'), /^Nothing selected$/);
    await page.locator('ul[aria-label="Clusters"] > li').first().getByRole('button', { name: /^Select cluster/ }).click();
    await expectText(page.getByTestId('selection-size'), /^1 whole cluster \(1 image\) selected$/);
    await bar.getByRole('button', { name: 'Untag', exact: true }).click();
    await expectText(bar.getByRole('status'), /^Untagged 1 image “keepers”\.$/);
    expect(await tags()).toEqual([['keepers', 2]]);

    await bar.getByRole('button', { name: 'Export selection (JSON)' }).click();
    await bar.getByRole('status').filter({ hasText: /^Export started/ }).waitFor();
    const exportTask = await eventually(
      async () => (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId, task_type: 'EXPORT' }).expect(200)).body.tasks[0],
      (task) => task?.status === 'COMPLETED' || task?.status === 'FAILED',
    );
    expect(exportTask.status).toBe('COMPLETED');
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('labels a picked image and its near copies in a LABEL_PROPAGATION task, filters by the label, tags everything the filter matches and selects one for labelling', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'web-labels-'));
    const copy = path.join(scratch, 'chelsea_small.jpg');
    await sharp(photo('chelsea')).resize(220).jpeg({ quality: 70 }).toFile(copy);
    const datasetId = await createReadyDataset(stack, 'labelling', [...['chelsea', 'coffee', 'rocket'].map(photo), copy]);
    await page.goto(`/datasets/${datasetId}/explore?threshold=0`);
    await waitForLoadedImages(page);
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    await page.locator('ul[aria-label="Clusters"] button.thumb', { has: page.locator('img[alt="chelsea.jpg"]') }).click();
    await expectText(page.getByTestId('selection-size'), /^1 image selected$/);
    const bar = page.getByRole('region', { name: 'Selection' });
    const labelForm = bar.getByRole('form', { name: 'Label' });
    await labelForm.getByRole('textbox', { name: 'Label' }).fill('cat');
    await labelForm.getByLabel('Least similarity').fill('0.8');
    await labelForm.getByRole('button', { name: 'Label', exact: true }).click();
    const finished = bar.getByTestId('label-task').filter({ hasText: /^(COMPLETED|FAILED)/ });
    await finished.waitFor({ timeout: 60_000 });
    await expectText(finished, /^COMPLETED: Labelled 1 selected media “cat” and propagated it to 1 neighbours/);
    const task = (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId, task_type: 'LABEL_PROPAGATION' }).expect(200)).body.tasks[0];
    expect(task).toMatchObject({ task_type: 'LABEL_PROPAGATION', status: 'COMPLETED' });

    await page.goto(`/datasets/${datasetId}/explore?vql=${encodeURIComponent(JSON.stringify([{ labels: { op: 'one_of', value: ['cat'] } }]))}`);
    await waitForLoadedImages(page);
    expect((await page.locator('ul[aria-label="Clusters"] img').evaluateAll((images) => images.map((image) => image.getAttribute('alt')))).sort()).toEqual(['chelsea.jpg', 'chelsea_small.jpg']);
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    await page.getByRole('button', { name: 'Select all matching the filters' }).click();
    await expectText(page.getByTestId('selection-size'), /^everything matching the filters selected$/);
    await expectText(page.getByTestId('selection-count'), /^2 images$/);
    await bar.getByLabel('Tag name').fill('cats');
    await bar.getByRole('button', { name: 'Tag', exact: true }).click();
    await expectText(bar.getByRole('status').filter({ hasText: /^Tagged/ }), /^Tagged 2 images “cats”\.$/);
    // Select N for labelling: one of the two, as a new tag, by a SELECTION task.
    await bar.getByText('Select N for labelling…').click();
    const choose = bar.getByRole('form', { name: 'Select for labelling' });
    await choose.getByLabel('How many to select').fill('1');
    await choose.getByRole('button', { name: 'Select for labelling' }).click();
    await expectText(bar.getByTestId('task-notice').filter({ hasText: /^Tagged/ }), /^Tagged 1 media “to label” from a pool of 1; 1 duplicate copy left out\. Filter Explore by the tag to see them\./);
    expect(pageErrors).toEqual([]);
    fs.rmSync(scratch, { recursive: true, force: true });
  }, 180_000);

  it('asks for a login when auth is on, shows a refused one as its detail, and works on the session cookie until signing out', async () => {
    const password = 'a long enough password';
    const secured = await startTestApi({ DISABLE_AUTH: 'false', ADMIN_PASSWORD: password, PUBLIC_URL: await localPublicUrl() });
    const securedHttp = await serveOverHttp(secured);
    const context = await browser.newContext({ baseURL: securedHttp.url });
    try {
      const login = await context.newPage();
      login.on('pageerror', (error) => pageErrors.push(error.message));
      await login.goto('/');
      await login.getByRole('heading', { name: 'Sign in' }).waitFor();
      await login.getByLabel('Email').fill('admin@localhost.localdomain');
      await login.getByLabel('Password').fill('wrong password');
      await login.getByRole('button', { name: 'Sign in' }).click();
      await expectText(login.getByRole('alert'), /^Sign-in refused: .+/);
      await login.getByLabel('Password').fill(password);
      await login.getByRole('button', { name: 'Sign in' }).click();
      await login.getByRole('heading', { name: 'Datasets', exact: true }).waitFor();
      await login.getByText('No dataset yet: create one above.').waitFor();
      // The notification stream opened again with the session cookie.
      await expectText(login.getByTestId('unread-count'), /^0$/);
      await login.screenshot({ path: path.join(screenshotsDir(), 'web-signed-in.png'), fullPage: true });
      await login.getByRole('button', { name: 'Sign out admin@localhost.localdomain' }).click();
      await login.getByRole('heading', { name: 'Sign in' }).waitFor();
      await login.reload();
      await login.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect(pageErrors).toEqual([]);
    } finally {
      await context.close();
      await securedHttp.close();
      await secured.close();
    }
  }, 120_000);

  it('aborts a running creation from the Tasks page and retries it to completion', async () => {
    // A long video keeps the creation running (frames every 500 ms) long enough to press Abort.
    const video = makeVideo(60);
    const { datasetId, transId } = await newDatasetWithTransaction(stack, 'abort and retry');
    await uploadFiles(stack, datasetId, transId, [video, photo('camera')]).expect(202);
    fs.rmSync(path.dirname(video), { recursive: true, force: true });
    await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202);

    await page.goto(`/tasks?dataset_id=${datasetId}`);
    const task = page.locator('table[aria-label="Tasks"] tbody tr[data-task-type="DATASET_CREATION"]');
    const abort = task.getByRole('button', { name: 'Abort' });
    const retry = task.getByRole('button', { name: 'Retry' });
    await task.getByTestId('task-status').filter({ hasText: /INITIALIZING|RUNNING/ }).waitFor();
    expect(await retry.getAttribute('title')).toMatch(/^Task is [A-Z]+; only FAILED or ABORTED tasks can be retried$/);
    // The abort answers once the workflow has stopped; held a little longer here, the row says "Aborting…" meanwhile.
    await page.route('**/api/v1/tasks/*/abort', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await abort.click();
    await page.getByRole('dialog', { name: 'Abort this DATASET_CREATION task?' }).getByRole('button', { name: 'Abort the task' }).click();
    await task.getByTestId('task-status').filter({ hasText: 'Aborting…' }).waitFor({ timeout: 1000 });
    await task.getByTestId('task-status').filter({ hasText: 'ABORTED' }).waitFor({ timeout: 60_000 });
    await page.unroute('**/api/v1/tasks/*/abort');
    expect(await abort.isDisabled()).toBe(true);
    expect(await task.textContent()).toContain('ERROR');
    await screenshot('aborted');

    await retry.click();
    await task.getByTestId('task-status').filter({ hasText: 'COMPLETED' }).waitFor({ timeout: 240_000 });
    expect(await task.textContent()).toContain('READY');
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('says why a caption search of a dataset never enriched finds nothing, and where to enrich it', async () => {
    const datasetId = await createReadyDataset(stack, 'never enriched', [photo('chelsea')]);
    await page.goto(`/datasets/${datasetId}/explore?caption=${encodeURIComponent('a dog on a beach')}`);
    await expectText(page.getByText(/^No cluster on this page\./), /This dataset has no captions and no concept vectors, which text search reads: enrich a copy/);
    await page.getByRole('link', { name: 'Enrich on the dataset page' }).click();
    await page.waitForURL(`**/datasets/${datasetId}`);
    expect(pageErrors).toEqual([]);
  }, 120_000);

  it('pages a long list of datasets, 25 a page, newest first', async () => {
    for (let i = 0; i < 26; i++) await stack.request.get('/api/v1/ingestion/new_dataset').query({ dataset_name: `many ${String(i).padStart(2, '0')}` }).expect(200);
    const total = (await stack.request.get('/api/v1/datasets').expect(200)).body.length as number;
    await page.goto('/');
    const rows = page.locator('table[aria-label="Datasets"] tbody tr');
    const pager = page.getByRole('navigation', { name: 'Dataset pages' });
    await expectText(pager, new RegExp(`Page 1 of ${Math.ceil(total / 25)} \\(${total} datasets\\)`));
    expect(await rows.count()).toBe(25);
    expect(await rows.first().locator('td').first().textContent()).toBe('many 25');
    await pager.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/page=1/);
    await expectText(pager, /^Previous\s*Page 2 of/);
    expect(await rows.count()).toBe(Math.min(25, total - 25));
    // The 26th newest.
    expect(await rows.first().locator('td').first().textContent()).toBe('many 00');
    await screenshot('datasets-paged');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
