import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createReadyDataset } from '../support/datasets';
import { photo } from '../support/media';
import { choose, expectFitsAndAccessible, expectText, startWebApp, type WebApp } from '../support/webApp';

interface ApiGroup {
  members: Array<{ media_id: string; file_name: string; role: string | null }>;
  decision: { verdict: string } | null;
}

/**
 * Duplicate review in Chromium on four planted pairs (a 60 % resize twice, a quality-45 re-encode, a byte copy):
 * each copy's tier and reason, a copy beside the keeper, focus on the next group after a decision, and the
 * k / d / n keys deciding the focused group (read back from the API).
 */
describe('web app: duplicate review', () => {
  let web: WebApp;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'web-duplicates-'));
  const planted = (name: string) => path.join(scratch, name);

  beforeAll(async () => {
    const resize = async (name: string) => {
      const { width } = await sharp(photo(name)).metadata();
      await sharp(photo(name)).resize(Math.round(width! * 0.6)).jpeg({ quality: 90 }).toFile(planted(`${name}_small.jpg`));
    };
    await resize('chelsea');
    await resize('rocket');
    await sharp(photo('coffee')).jpeg({ quality: 45 }).toFile(planted('coffee_q45.jpg'));
    fs.copyFileSync(photo('astronaut'), planted('astronaut_copy.jpg'));
    web = await startWebApp();
    datasetId = await createReadyDataset(web.stack, 'duplicate review', [
      ...['chelsea', 'rocket', 'coffee', 'astronaut'].map(photo),
      ...['chelsea_small.jpg', 'rocket_small.jpg', 'coffee_q45.jpg', 'astronaut_copy.jpg'].map(planted),
    ]);
  }, 240_000);
  afterAll(async () => {
    await web?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const groups = () => web.page.locator('ul[aria-label="Duplicate groups"] > li');
  const groupOf = (fileName: string) => groups().filter({ has: web.page.getByRole('checkbox', { name: `keep ${fileName}`, exact: true }) });
  const copy = (fileName: string) => web.page.locator('.dup-item').filter({ has: web.page.getByRole('checkbox', { name: `keep ${fileName}`, exact: true }) });
  // Browser code as strings: the root tsconfig has no DOM types.
  const shownGroupIds = () => web.page.evaluate(`Array.from(document.querySelectorAll('ul[aria-label="Duplicate groups"] > li')).map((item) => item.dataset.groupId)`) as Promise<string[]>;
  const focusedGroupId = () => web.page.evaluate(`document.activeElement?.closest('li.dup-group')?.dataset.groupId ?? document.activeElement?.tagName`) as Promise<string>;
  /** Focus comes to rest inside the group (the list answers the decision first), else the test says where it is. */
  const expectFocusIn = async (groupId: string) => {
    await web.page.waitForFunction(`document.activeElement?.closest('li.dup-group')?.dataset.groupId === ${JSON.stringify(groupId)}`, undefined, { timeout: 10_000 }).catch(() => undefined);
    expect(await focusedGroupId()).toBe(groupId);
  };
  /** The decided groups through the API: their copies' names, the verdict and the copies kept. */
  const decided = async () => {
    const body = (await web.stack.request.get(`/api/v1/dataset/${datasetId}/duplicates`).query({ state: 'decided' }).expect(200)).body as { groups: ApiGroup[] };
    return body.groups.map((group) => ({
      names: group.members.map((member) => member.file_name).sort(),
      verdict: group.decision?.verdict,
      kept: group.members.filter((member) => member.role === 'keep').map((member) => member.file_name),
    }));
  };
  /** The file names of a shown group's copies (`:checked`: those ticked to keep). */
  const namesIn = async (groupId: string, only = '') =>
    ((await web.page.evaluate(`Array.from(document.querySelectorAll('li.dup-group[data-group-id="${groupId}"] input[type="checkbox"]${only}')).map((box) => box.getAttribute('aria-label').replace(/^keep /, ''))`)) as string[]).sort();

  it('shows each copy\'s tier and reason, filters by tier, and compares a copy with the suggested keeper', async () => {
    const { page, pageErrors, screenshot } = web;
    await page.goto(`/datasets/${datasetId}/duplicates`);
    await groups().first().waitFor();
    expect(await groups().count()).toBe(4);
    await expectText(copy('chelsea_small.jpg').locator('.dup-why'), /^near-identical same picture at (60 %|167 %) size \((this copy against chelsea\.jpg|chelsea\.jpg against this copy)\)$/);
    await expectText(copy('coffee_q45.jpg').locator('.dup-why'), /^near-identical same picture re-encoded \(\d+ kB against \d+ kB\) \((this copy against coffee\.jpg|coffee\.jpg against this copy)\)$/);
    await expectText(copy('astronaut_copy.jpg').locator('.dup-why'), /^exact same bytes \((this copy against astronaut\.jpg|astronaut\.jpg against this copy)\)$/);
    // Every copy, the keeper too, carries a badge of its tier.
    expect((await page.locator('.dup-item .dup-tier').allTextContents()).sort()).toEqual(['exact', 'exact', ...Array(6).fill('near-identical')]);
    await screenshot('duplicates-tiers');
    await expectFitsAndAccessible(page);

    // A copy beside the suggested keeper, both large, with their facts; Escape closes back to the button.
    const compare = copy('chelsea_small.jpg').getByRole('button', { name: 'Compare with the keeper' });
    await compare.click();
    const dialog = page.getByRole('dialog', { name: 'chelsea_small.jpg beside the suggested keeper' });
    await dialog.getByRole('img', { name: 'suggested keeper: chelsea.jpg' }).waitFor();
    await page.waitForFunction(`Array.from(document.querySelectorAll('dialog.dup-compare img')).every((image) => image.complete && image.naturalWidth > 0)`);
    const widths = (await page.evaluate(`Array.from(document.querySelectorAll('dialog.dup-compare img')).map((image) => image.getBoundingClientRect().width)`)) as number[];
    expect(Math.min(...widths)).toBeGreaterThan(300);
    expect(await dialog.locator('figcaption').allTextContents()).toEqual([
      expect.stringMatching(/^suggested keeper: chelsea\.jpg\d+×\d+ · \d+ kB · (jpeg|jpg)/i),
      expect.stringMatching(/^this copy: chelsea_small\.jpg\d+×\d+ · \d+ kB · (jpeg|jpg)/i),
    ]);
    await screenshot('duplicates-compare');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(`document.activeElement?.textContent`)).toBe('Compare with the keeper');

    // "Similar" is its own choice: the planted copies are not in it, and the page shows what the API says.
    await choose(page.getByRole('radio', { name: 'Similar' }));
    await page.waitForURL(/tiers=similar/);
    const similar = (await web.stack.request.get(`/api/v1/dataset/${datasetId}/duplicates`).query({ tiers: 'similar' }).expect(200)).body as { total: number };
    if (similar.total === 0) await page.getByText('No group here at this similarity.').waitFor();
    else await page.locator('.dup-tier.similar').first().waitFor();
    expect(await page.locator('.dup-tier.exact, .dup-tier.near_identical').count()).toBe(0);
    await choose(page.getByRole('radio', { name: 'Exact and near-identical' }));
    await copy('chelsea_small.jpg').waitFor();

    // A phone's width: the reasons and the comparison fit.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await expectFitsAndAccessible(page);
      await compare.click();
      await dialog.getByRole('img', { name: 'this copy: chelsea_small.jpg' }).waitFor();
      await expectFitsAndAccessible(page);
      await page.keyboard.press('Escape');
    } finally {
      await page.setViewportSize({ width: 1400, height: 1000 });
    }
    expect(pageErrors).toEqual([]);
  });

  it('moves focus to the next group after a decision, and decides the focused group with k, d and n', async () => {
    const { page, pageErrors } = web;
    await page.goto(`/datasets/${datasetId}/duplicates`);
    await groups().first().waitFor();
    const order = await shownGroupIds();
    expect(order).toHaveLength(4);
    const names = await Promise.all(order.map((groupId) => namesIn(groupId)));
    const ticked = await Promise.all(order.map((groupId) => namesIn(groupId, ':checked')));

    // A click on the decision: focus goes on to the next group, not to the page's body.
    await page.locator(`li.dup-group[data-group-id="${order[0]}"]`).getByRole('button', { name: 'Keep this copy, discard the rest' }).click();
    await expectFocusIn(order[1]);
    expect(await groups().count()).toBe(3);
    await expectText(page.getByTestId('decision-status'), /^Kept \S+\.jpg; 1 copy discarded\.$/);

    // d on the focused group keeps the ticked copy, its suggested keeper.
    await page.keyboard.press('d');
    await expectFocusIn(order[2]);
    expect(await decided()).toContainEqual({ names: names[1], verdict: 'duplicates', kept: ticked[1] });

    // k on a copy (not the suggested one) keeps that copy alone.
    const other = names[2].find((name) => !ticked[2].includes(name))!;
    await groupOf(other).getByRole('checkbox', { name: `keep ${other}`, exact: true }).focus();
    await page.keyboard.press('k');
    await expectFocusIn(order[3]);
    expect(await decided()).toContainEqual({ names: names[2], verdict: 'duplicates', kept: [other] });

    // n says the last group holds no duplicates; focus rests on what the list now says.
    await page.keyboard.press('n');
    await page.getByText('No group here at this similarity.').waitFor();
    expect(await page.evaluate(`document.activeElement?.textContent`)).toBe('No group here at this similarity.');
    expect(await decided()).toContainEqual({ names: names[3], verdict: 'not_duplicates', kept: [] });
    expect(await decided()).toHaveLength(4);

    // The keys are in the shortcuts sheet.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expectText(help, /kKeep the focused copy, discard the rest of its group.*dKeep the ticked copies.*nNot duplicates/);
    await page.keyboard.press('Escape');
    expect(pageErrors).toEqual([]);
  });
});
