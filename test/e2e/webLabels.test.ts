import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createReadyDataset, waitForTask } from '../support/datasets';
import { labelledFixture } from '../support/labelledImages';
import { expectFitsAndAccessible, expectText, shownMediaIds, startWebApp, type WebApp } from '../support/webApp';

const IMAGES = 120;
const PLANTED_COPIES = 4;

/**
 * The Labels page on real labelled photos (Fashion-MNIST, 10 % of labels flipped, copies planted in
 * the other split): declare the fields from the ones the media carry, follow the task, read the
 * report (chart, classes, confused pairs, leakage) and follow its links into Explore.
 */
describe('web app: labels and their quality report', () => {
  let web: WebApp;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'web-labels-'));

  beforeAll(async () => {
    web = await startWebApp();
    const fixture = await labelledFixture(IMAGES, PLANTED_COPIES, scratch);
    datasetId = await createReadyDataset(web.stack, 'fashion', fixture.files);
    await web.stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', fixture.metadataFile).expect(202);
    expect((await waitForTask(web.stack, datasetId, ['COMPLETED', 'FAILED'])).task_type).toBe('CUSTOM_METADATA');
  }, 600_000);
  afterAll(async () => {
    await web?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** What Explore's API shows for `vql`: the ids the page's grid must show. */
  const apiShown = async (vql: string): Promise<string[]> => {
    const explore = await web.stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold: 0, vql }).expect(200);
    return explore.body.clusters.flatMap((cluster: { previews: Array<{ media_id: string }> }) => cluster.previews.map((preview) => preview.media_id)).sort();
  };

  it('declares the label and split fields, follows the check, and shows the report whose links filter Explore', async () => {
    const { page, screenshot, pageErrors } = web;
    await page.goto(`/datasets/${datasetId}`);
    await page.getByRole('link', { name: 'Labels', exact: true }).click();
    await page.getByTestId('no-label-report').waitFor();

    const form = page.getByRole('form', { name: 'Label fields' });
    // The fields are offered from the media's custom metadata, with how many carry each and its values.
    const offered = await form.getByLabel('Label field').locator('option').allTextContents();
    expect(offered).toEqual(expect.arrayContaining([`category (${IMAGES + PLANTED_COPIES} media, 10 values)`, `split (${IMAGES + PLANTED_COPIES} media, 2 values)`]));
    await form.getByLabel('Label field').selectOption('category');
    await form.getByLabel('Split field').selectOption('category');
    const submit = form.getByRole('button', { name: 'Check labels' });
    expect(await submit.isDisabled()).toBe(true);
    await expectText(form, /The split field must differ from the label field\./);
    await form.getByLabel('Split field').selectOption('split');
    await submit.click();

    const notice = page.getByTestId('task-notice');
    await page.locator('[data-testid="task-notice"][data-task-status="COMPLETED"]').waitFor({ timeout: 240_000 });
    await expectText(notice, /^Checked \d+ labelled media: \d+ likely mislabelled, \d+ near-duplicate pairs across splits/);

    const report = (await web.stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    const section = page.getByTestId('label-report');
    await section.waitFor();
    await expectText(section.locator('p').first(), new RegExp(`${report.n_labelled} of ${report.n_media} images labelled, ${report.n_flagged} likely mislabelled`));
    // One bar per class, and the table says the same counts.
    expect(await page.getByTestId('class-chart').locator('g[data-class]').count()).toBe(report.classes.length);
    const rows = await page.getByRole('table', { name: 'Label quality per class' }).locator('tbody tr').all();
    expect(rows).toHaveLength(report.classes.length);
    for (const [i, row] of rows.entries()) {
      expect((await row.locator('th, td').allTextContents()).slice(0, 3)).toEqual([report.classes[i].label, String(report.classes[i].count), String(report.classes[i].flagged)]);
    }
    await screenshot('labels-report');

    // The most confused pair opens Explore on exactly its images.
    const pair = report.confused_pairs[0];
    await page.getByRole('list', { name: 'Most confused class pairs' }).getByRole('link').first().click();
    await page.getByTestId('issue-details').waitFor();
    await expectText(page.getByTestId('issue-details'), new RegExp(`where label is ${pair.label}, suggested label is ${pair.suggested_label}`));
    const pairShown = await shownMediaIds(page);
    expect(pairShown).toHaveLength(pair.count);
    expect(pairShown).toEqual(await apiShown(new URL(page.url()).searchParams.get('vql')!));

    // Leakage per split pair opens Explore on the planted copies and their originals.
    await page.goBack();
    await page.getByRole('list', { name: 'Leakage per split pair' }).getByRole('link').first().click();
    await expectText(page.getByTestId('issue-details'), /where split is test or train, duplicate split is test or train/);
    const leaking = await shownMediaIds(page);
    expect(leaking.length).toBeGreaterThanOrEqual(2 * PLANTED_COPIES);
    expect(leaking).toEqual(await apiShown(new URL(page.url()).searchParams.get('vql')!));
    // "Any leakage" drops the details and keeps the issue.
    await page.getByRole('button', { name: 'Any leakage' }).click();
    await page.getByTestId('issue-details').waitFor({ state: 'detached' });
    expect(JSON.parse(new URL(page.url()).searchParams.get('vql')!)).toEqual([{ issues: { op: 'issue', value: 'leakage', mode: 'in' } }]);
    expect(pageErrors).toEqual([]);
  }, 400_000);

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    it(`the report at ${viewport.width}x${viewport.height} is as wide as the screen, and axe-core finds no serious or critical violation`, async () => {
      const context = await web.browser.newContext({ baseURL: web.http.url, viewport });
      try {
        const page = await context.newPage();
        await page.goto(`/datasets/${datasetId}/labels`);
        await page.getByRole('table', { name: 'Classes' }).waitFor();
        await page.getByRole('table', { name: 'Label quality per class' }).waitFor();
        await expectFitsAndAccessible(page);
      } finally {
        await context.close();
      }
    });
  }
});
