import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newDatasetWithTransaction, waitForTask } from '../support/datasets';
import { labelledFixture } from '../support/labelledImages';
import { eventually } from '../support/media';
import { headVersionId } from '../support/versions';
import { expectFitsAndAccessible, expectText, shownMediaIds, startWebApp, type WebApp } from '../support/webApp';

const IMAGES = 100;

type ClassCount = { label: string; count: number };

/**
 * The user's own labels in the browser, on real Fashion-MNIST photos sent as class folders (10 % of them in
 * the wrong folder): Explore's class facet with its counts, "Set class" on a selection and its Undo, the
 * viewer's class and history, and the Labels page accepting the label check's suggestions, with Undo.
 */
describe("web app: the user's classes, seen and fixed", () => {
  let web: WebApp;
  let datasetId: string;
  let truth: Map<string, string>;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'web-classes-'));
  const classes = async (): Promise<ClassCount[]> => (await web.stack.request.get(`/api/v1/dataset/${datasetId}/classes`).expect(200)).body.classes;
  /** The ids Explore's API shows at threshold 0 for a class filter: what the page's grid must show. */
  const apiShown = async (labels: string[]): Promise<string[]> => {
    const vql = JSON.stringify([{ ground_truth: { op: 'one_of', value: labels } }]);
    const explore = await web.stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold: 0, vql }).expect(200);
    return explore.body.clusters.flatMap((cluster: { previews: Array<{ media_id: string }> }) => cluster.previews.map((preview) => preview.media_id)).sort();
  };
  const countsOf = (list: ClassCount[]) => new Map(list.map((entry) => [entry.label, entry.count]));
  /** The items the label check flags now, with their class and the class it suggests. */
  const flags = async (): Promise<Array<{ file_name: string; label: string; suggested: string; score: number }>> =>
    web.stack.deps
      .db('media_issues as i')
      .join('media as m', (join) => join.on('m.id', 'i.media_id').andOn('m.version_id', 'i.version_id'))
      .where({ 'i.version_id': await headVersionId(web.stack.deps.db, datasetId), 'i.issue_type': 'mislabel' })
      .select('m.file_name', web.stack.deps.db.raw(`i.details->>'label' AS label`), web.stack.deps.db.raw(`i.details->>'suggested_label' AS suggested`), 'i.confidence as score');

  beforeAll(async () => {
    web = await startWebApp();
    const fixture = await labelledFixture(IMAGES, 0, scratch);
    truth = fixture.truth;
    const metadata: Array<{ file_name: string; category: string }> = JSON.parse(fs.readFileSync(fixture.metadataFile, 'utf8'));
    const created = await newDatasetWithTransaction(web.stack, 'fashion classes');
    datasetId = created.datasetId;
    const upload = web.stack.request.post(`/api/v1/ingestion/${datasetId}/data_files/${created.transId}`);
    for (const { file_name: fileName, category } of metadata) {
      upload.attach('files', path.join(path.dirname(fixture.files[0]), fileName), { filepath: `${category}/${fileName}` } as { filename?: string });
    }
    await upload.expect(202);
    await web.stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${created.transId}`).query({ labels_from: 'folder' }).expect(202);
    expect((await waitForTask(web.stack, datasetId, ['COMPLETED', 'FAILED'], 600_000)).status).toBe('COMPLETED');
    // The folders' labels are checked after creation: wait for the report.
    await eventually(
      async () => (await web.stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`)).status,
      (status) => status === 200,
      300_000,
      'the label-quality report',
    );
    await eventually(
      async () => (await web.stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new,
      (status) => status === 'READY',
      120_000,
      'the dataset READY',
    );
  }, 900_000);
  afterAll(async () => {
    await web?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('filters Explore by class with counts, sets a class on a selection and undoes it, and shows the class and its history in the viewer', async () => {
    const { page, screenshot, pageErrors } = web;
    const before = await classes();
    await page.goto(`/datasets/${datasetId}/explore?threshold=0`);
    const facet = page.getByRole('group', { name: 'Class' });
    await facet.locator('button[data-class]').first().waitFor();
    // One button per class, with its count; the model-made labels' filter is named apart.
    const offered = await facet.locator('button[data-class]').evaluateAll((buttons) => buttons.map((button) => button.textContent));
    expect(offered).toEqual(before.map((entry) => `${entry.label} ${entry.count}`));
    await page.getByRole('textbox', { name: 'Model labels' }).waitFor();

    const [first, second, third] = before;
    await facet.locator(`button[data-class="${first.label}"]`).click();
    await page.waitForURL(/vql=/);
    expect(JSON.parse(new URL(page.url()).searchParams.get('vql')!)).toEqual([{ ground_truth: { op: 'one_of', value: [first.label] } }]);
    expect(await shownMediaIds(page)).toEqual(await apiShown([first.label]));
    await facet.locator(`button[data-class="${second.label}"]`).click();
    await expectText(page.getByTestId('vql-text'), new RegExp(`"value":\\["${first.label}","${second.label}"\\]`));
    expect(await facet.locator(`button[data-class="${second.label}"]`).getAttribute('aria-pressed')).toBe('true');
    expect(await shownMediaIds(page)).toEqual(await apiShown([first.label, second.label]));
    await expectFitsAndAccessible(page);

    // Two images of the first class get the third class, then Undo puts them back.
    await page.getByRole('button', { name: 'Select', exact: true }).click();
    const bar = page.getByRole('region', { name: 'Selection' });
    const setForm = bar.getByRole('form', { name: 'Set class' });
    await expectText(setForm.locator('.muted'), /^Select images first\.$/);
    const picked = (await apiShown([first.label])).slice(0, 2);
    for (const mediaId of picked) await page.locator(`button.thumb[data-media-id="${mediaId}"]`).click();
    await expectText(page.getByTestId('selection-size'), /^2 images selected$/);
    // The classes are offered as suggestions.
    expect(await setForm.locator('datalist option').evaluateAll((options) => options.map((option) => option.getAttribute('value')))).toEqual(before.map((entry) => entry.label));
    await setForm.getByRole('combobox', { name: 'Class' }).fill(third.label);
    await setForm.getByRole('button', { name: 'Set class' }).click();
    await expectText(setForm.getByTestId('set-class-result'), new RegExp(`^Class “${third.label}” set: 2 images changed\\.`));
    const afterSet = countsOf(await classes());
    expect(afterSet.get(first.label)).toBe(first.count - 2);
    expect(afterSet.get(third.label)).toBe(third.count + 2);
    await expectText(facet.locator(`button[data-class="${third.label}"]`), new RegExp(`^${third.label} ${third.count + 2}$`));
    await screenshot('classes-set');

    await setForm.getByRole('button', { name: 'Undo' }).click();
    await expectText(setForm.getByTestId('set-class-result'), /^Undone: 2 images put back\.$/);
    expect(countsOf(await classes())).toEqual(countsOf(before));
    await expectText(facet.locator(`button[data-class="${third.label}"]`), new RegExp(`^${third.label} ${third.count}$`));

    // Propagation says how many it would label, at its similarity and at others, before it runs.
    const labelForm = bar.getByRole('form', { name: 'Label' });
    await labelForm.getByRole('textbox', { name: 'Label' }).fill(third.label);
    await labelForm.getByRole('button', { name: 'Preview' }).click();
    const preview = (await web.stack.request
      .post(`/api/v1/dataset/${datasetId}/labels/propagate/preview`)
      .send({ label: third.label, selection: { media_ids: picked }, min_similarity: 0.9, max_neighbours: 50 })
      .expect(200)).body;
    await expectText(labelForm.getByTestId('propagation-preview'), new RegExp(`^At similarity ≥ 0\\.90: ${preview.neighbours} neighbours of the 2 selected, ${preview.changes} classes changed\\.`));
    await labelForm.getByTestId('propagation-preview').getByRole('button', { name: '0.80' }).click();
    expect(await labelForm.getByLabel('Least similarity').inputValue()).toBe('0.8');

    // The viewer shows the class and, disclosed, its history.
    await page.getByRole('button', { name: 'Done selecting' }).click();
    await bar.getByRole('button', { name: 'Clear selection' }).click();
    await page.locator(`button.thumb[data-media-id="${picked[0]}"]`).click();
    const viewer = page.getByRole('dialog');
    await expectText(viewer.getByTestId('viewer-class'), new RegExp(`^${first.label}$`));
    await viewer.getByTestId('class-history').locator('summary').click();
    const changes = viewer.getByTestId('class-history').locator('li');
    await changes.first().waitFor();
    const lines = await changes.allTextContents();
    expect(lines[0]).toMatch(new RegExp(`^Undone: ${third.label} → ${first.label} `));
    expect(lines[1]).toMatch(new RegExp(`^Set: ${first.label} → ${third.label} \\(undone\\) `));
    await screenshot('classes-viewer');
    await page.keyboard.press('Escape');
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('accepts the suggestions above a score on the Labels page, showing how many first, and undoes them; the counts follow', async () => {
    const { page, screenshot, pageErrors } = web;
    const before = await classes();
    const flagged = await flags();
    expect(flagged.length).toBeGreaterThan(0);
    await page.goto(`/datasets/${datasetId}/labels`);
    const panel = page.getByTestId('classes-panel');
    const table = panel.getByRole('table', { name: 'Classes' });
    await table.locator('tbody tr').first().waitFor();
    const tableCounts = async () =>
      new Map(await table.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [row.querySelector('th')!.textContent!, Number(row.querySelector('td')!.textContent!.replace(/,/g, ''))] as [string, number])));
    expect(await tableCounts()).toEqual(countsOf(before));
    await expectText(panel.getByTestId('flagged-count'), new RegExp(`^${flagged.length} images? flagged`));

    // A score the user picks: the count of flagged items at or above it shows before acting.
    const form = panel.getByRole('form', { name: 'Accept suggestions' });
    const slider = form.getByRole('slider', { name: 'Least score' });
    await slider.focus();
    await page.keyboard.press('End');
    const atOne = flagged.filter((flag) => flag.score >= 1).length;
    await expectText(form.getByTestId('suggestions-count'), new RegExp(`^${atOne} images? at this score$`));
    await page.keyboard.press('Home');
    await expectText(form.getByTestId('suggestions-count'), new RegExp(`^${flagged.length} images? at this score$`));
    await expectFitsAndAccessible(page);
    // The most confident: 0.9 and above.
    await slider.focus();
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    const above = flagged.filter((flag) => flag.score >= 0.9);
    expect(above.length).toBeGreaterThan(0);
    await expectText(form.getByTestId('suggestions-count'), new RegExp(`^${above.length} images? at this score$`));
    await form.getByRole('button', { name: `Accept ${above.length} suggestions` }).click();
    await expectText(panel.getByTestId('classes-result'), new RegExp(`^Suggestions accepted: ${above.length} images? changed\\.$`));

    // Each item accepted moved from its class to the suggested one; the table and Explore's facet say so.
    const expected = countsOf(before);
    for (const flag of above) {
      expected.set(flag.label, expected.get(flag.label)! - 1);
      expected.set(flag.suggested, (expected.get(flag.suggested) ?? 0) + 1);
    }
    for (const [label, count] of expected) if (count === 0) expected.delete(label);
    expect(countsOf(await classes())).toEqual(expected);
    await eventually(tableCounts, (counts) => counts.size === expected.size && [...expected].every(([label, count]) => counts.get(label) === count), 15_000, 'the table showing the new counts');
    const corrected = above.filter((flag) => flag.suggested === truth.get(path.posix.basename(flag.file_name))).length;
    // Most confident suggestions put back a flipped label (the check's precision is measured in bench:label-quality).
    expect(corrected).toBeGreaterThan(above.length / 2);
    // The items decided are no longer flagged.
    await expectText(panel.getByTestId('flagged-count'), new RegExp(`^${flagged.length - above.length} images? flagged`));
    await screenshot('classes-accepted');

    await panel.getByRole('button', { name: 'Undo the last change of classes' }).click();
    await expectText(panel.getByTestId('classes-result'), new RegExp(`^Undone \\(accept\\): ${above.length} images? put back\\.$`));
    expect(countsOf(await classes())).toEqual(countsOf(before));
    // The undo puts the flags back, so the suggestions can be accepted again.
    expect((await flags()).length).toBe(flagged.length);
    await expectText(panel.getByTestId('flagged-count'), new RegExp(`^${flagged.length} images? flagged`));
    await eventually(tableCounts, (counts) => [...countsOf(before)].every(([label, count]) => counts.get(label) === count), 15_000, 'the table showing the counts before');

    // Explore's facet counts follow too.
    await page.goto(`/datasets/${datasetId}/explore`);
    const facet = page.getByRole('group', { name: 'Class' });
    await facet.locator('button[data-class]').first().waitFor();
    expect(await facet.locator('button[data-class]').evaluateAll((buttons) => buttons.map((button) => button.textContent))).toEqual(before.map((entry) => `${entry.label} ${entry.count}`));
    expect(pageErrors).toEqual([]);
  }, 300_000);

  it('fits a 390 px screen with the classes panel and the class facet, and axe-core finds no serious or critical violation', async () => {
    const context = await web.browser.newContext({ baseURL: web.http.url, viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`/datasets/${datasetId}/labels`);
      await page.getByTestId('classes-panel').getByRole('table', { name: 'Classes' }).waitFor();
      await page.getByTestId('flagged-count').waitFor();
      await expectFitsAndAccessible(page);
      await page.goto(`/datasets/${datasetId}/explore`);
      await page.getByRole('group', { name: 'Class' }).locator('button[data-class]').first().waitFor();
      await expectFitsAndAccessible(page);
    } finally {
      await context.close();
    }
  }, 120_000);
});
