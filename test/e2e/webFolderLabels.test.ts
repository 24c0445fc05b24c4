import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { labelledFixture } from '../support/labelledImages';
import { headVersionId } from '../support/versions';
import { expectFitsAndAccessible, expectText, startWebApp, type WebApp } from '../support/webApp';

const IMAGES = 40;
/** Added afterwards from a second folder on the dataset page. */
const ADDED = 6;

/**
 * A dataset created in the browser from a folder with a sub-folder per class (real Fashion-MNIST images,
 * 10 % of them in the wrong class's folder): picked with the folder picker, "Use folder names as
 * labels" ticked, each image comes out labelled by its folder and the Labels page shows the report.
 */
describe('web app: a dataset from a folder per class, labelled by its folders', () => {
  let web: WebApp;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'web-folder-labels-'));
  const root = path.join(scratch, 'fashion');
  const more = path.join(scratch, 'more');
  let given: Map<string, string>;

  beforeAll(async () => {
    const fixture = await labelledFixture(IMAGES + ADDED, 0, scratch);
    const metadata: Array<{ file_name: string; category: string }> = JSON.parse(fs.readFileSync(fixture.metadataFile, 'utf8'));
    given = new Map(metadata.map((row) => [row.file_name, row.category]));
    for (const [i, file] of fixture.files.entries()) {
      const folder = path.join(i < IMAGES ? root : more, given.get(path.basename(file))!);
      fs.mkdirSync(folder, { recursive: true });
      fs.copyFileSync(file, path.join(folder, path.basename(file)));
    }
    web = await startWebApp();
  }, 300_000);
  afterAll(async () => {
    await web?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('picks the folder, sends each file with its sub-folder, and shows the labels report after creation', async () => {
    const { page, screenshot, pageErrors } = web;
    await page.goto('/');
    const useFolders = page.getByLabel('Use folders as labels');
    // Nothing picked from a folder yet: the box is disabled and says why.
    expect(await useFolders.isDisabled()).toBe(true);
    await expectText(page.locator('form .muted'), /no file was picked from a folder/);

    await page.getByLabel('Name').fill('fashion by folder');
    await page.getByLabel('Folder', { exact: true }).setInputFiles(root);
    const names = await page.locator('ul[aria-label="Files to upload"] .file-name').allTextContents();
    expect(names.sort()).toEqual([...given].slice(0, IMAGES).map(([name, label]) => `fashion/${label}/${name}`).sort());
    await useFolders.check();
    await expectFitsAndAccessible(page);
    await page.getByRole('button', { name: `Create dataset with ${IMAGES} files` }).click();
    const status = page.getByRole('status').filter({ hasText: `${IMAGES} files uploaded; indexing started, with each folder as its files' label.` });
    await status.waitFor({ timeout: 120_000 });

    const row = page.locator('table[aria-label="Datasets"] tr', { hasText: 'fashion by folder' });
    await row.getByTestId('dataset-status').filter({ hasText: 'READY' }).waitFor({ timeout: 600_000 });
    const datasetId = /\/datasets\/([^/]+)\/labels$/.exec((await status.getByRole('link', { name: 'Label quality report' }).getAttribute('href'))!)![1];
    const rows: Array<{ file_name: string; custom_metadata: Record<string, string> }> = await web.stack.deps
      .db('media')
      .where({ version_id: await headVersionId(web.stack.deps.db, datasetId) })
      .select('file_name', 'custom_metadata');
    // Each file keeps the path it was picked under; its parent folder is its label.
    expect(rows.map((media) => [media.file_name, media.custom_metadata]).sort()).toEqual(
      [...given].slice(0, IMAGES).map(([name, label]) => [`fashion/${label}/${name}`, { label }]).sort(),
    );

    await status.getByRole('link', { name: 'Label quality report' }).click();
    const report = (await web.stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    expect(report).toMatchObject({ label_field: 'label', n_labelled: IMAGES });
    await page.getByTestId('label-report').waitFor();
    await expectText(page.getByTestId('label-report').locator('p').first(), new RegExp(`${IMAGES} of ${IMAGES} images labelled, ${report.n_flagged} likely mislabelled`));
    // The table comes with the report's second request: its last row is waited for before the rows are read.
    const classRows = page.getByRole('table', { name: 'Classes' }).locator('tbody tr th');
    const folders = [...new Set(given.values())].sort();
    await classRows.nth(folders.length - 1).waitFor();
    expect((await classRows.allTextContents()).sort()).toEqual(folders);
    await screenshot('folder-labels-report');

    // More images from another folder per class on the dataset page: labelled in the declared field, checked again.
    await page.goto(`/datasets/${datasetId}`);
    const useFoldersToAdd = page.getByLabel('Use folders as labels');
    expect(await useFoldersToAdd.isDisabled()).toBe(true);
    await page.getByLabel('Media folder').setInputFiles(more);
    await useFoldersToAdd.check();
    await page.getByRole('button', { name: 'Add to dataset' }).click();
    await page.locator('[data-testid="task-notice"][data-task-status="COMPLETED"]').waitFor({ timeout: 600_000 });
    const rechecked = (await web.stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    expect(rechecked).toMatchObject({ label_field: 'label', n_labelled: IMAGES + ADDED });
    expect(pageErrors).toEqual([]);
  }, 900_000);
});
