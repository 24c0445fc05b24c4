/**
 * `npm run bench:web-explore`: time to first render of the web app's Explore page — from navigation
 * start until its 100 cluster cards are in the DOM and the next frame is painted — in headless
 * Chromium (Debian's, as the e2e tests use it), on a READY dataset of 100,000 synthetic media
 * (bench:explore's generator: rows and 5 clustering levels straight in Postgres; no vectors, the
 * page runs no search). Each navigation gets a fresh browser context, so it loads the bundle cold,
 * as a first visit does. Peers measured in the same run: the Explore API call the page makes, alone
 * (from Node), and the same page on a 1,000-media dataset. Also the gzip size of web/dist's JS.
 * Results: bench/results/web-explore/web-explore-<date>.json and .md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Browser } from 'playwright-core';
import { CHROMIUM_PATH, WEB_DIST } from '../../test/support/browser';
import { benchMachine, percentile, say, writeReport, runBench } from './common';
import { seedSyntheticDataset } from './syntheticDataset';
import { withWebBenchStack } from './webBenchStack';

const NAME = 'web-explore';

const RUNS = Number(process.env.BENCH_RUNS ?? 12);
const WARMUP = 2;
const CLUSTERS = 100;
const TARGET_MS = 1000;
const TARGET_BUNDLE_KB = 300;

/** Milliseconds since navigation start at which the page had `CLUSTERS` cards and painted the next frame. */
const RENDER_PROBE = `(() => {
  const done = () => document.querySelectorAll('ul[aria-label="Clusters"] > li').length >= ${CLUSTERS};
  new MutationObserver((_, observer) => {
    if (!done()) return;
    observer.disconnect();
    const domMs = performance.now();
    // rAF runs before the frame's paint; a task queued from it runs after that paint.
    requestAnimationFrame(() => setTimeout(() => { window.__rendered = { domMs, paintedMs: performance.now() }; }));
  }).observe(document, { childList: true, subtree: true });
})()`;

interface Navigation {
  rendered_ms: number;
  dom_ms: number;
  first_contentful_paint_ms: number;
  /** When the page asked Explore's API and when its answer had arrived (Resource Timing), from navigation start. */
  explore_request_start_ms: number;
  explore_response_end_ms: number;
  explore_requests: number;
  script_response_end_ms: number;
}

type Stats = { median_ms: number; p95_ms: number; min_ms: number; max_ms: number };
function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  return { median_ms: round(percentile(sorted, 0.5)), p95_ms: round(percentile(sorted, 0.95)), min_ms: round(sorted[0]), max_ms: round(sorted.at(-1)!) };
}
const round = (ms: number) => Math.round(ms * 10) / 10;

async function navigate(browser: Browser, url: string): Promise<Navigation> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  try {
    const page = await context.newPage();
    await page.addInitScript(RENDER_PROBE);
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction('window.__rendered !== undefined', undefined, { timeout: 30_000 });
    return (await page.evaluate(`(() => {
      const resources = performance.getEntriesByType('resource');
      const end = (pattern) => Math.max(0, ...resources.filter((entry) => pattern.test(entry.name)).map((entry) => entry.responseEnd));
      const explore = resources.filter((entry) => /\\/api\\/v1\\/explore\\//.test(entry.name));
      const paint = performance.getEntriesByName('first-contentful-paint')[0];
      return {
        rendered_ms: window.__rendered.paintedMs,
        dom_ms: window.__rendered.domMs,
        first_contentful_paint_ms: paint ? paint.startTime : -1,
        explore_request_start_ms: explore.length ? explore[0].startTime : -1,
        explore_response_end_ms: explore.length ? explore[0].responseEnd : -1,
        explore_requests: explore.length,
        script_response_end_ms: end(/\\/assets\\/.*\\.js$/),
      };
    })()`)) as Navigation;
  } finally {
    await context.close();
  }
}

/** The Explore page of `datasetId`, RUNS times after WARMUP. */
async function measurePage(browser: Browser, origin: string, datasetId: string) {
  const url = `${origin}/datasets/${datasetId}/explore`;
  for (let i = 0; i < WARMUP; i++) await navigate(browser, url);
  const runs: Navigation[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await navigate(browser, url));
  return {
    first_render: stats(runs.map((run) => run.rendered_ms)),
    cards_in_dom: stats(runs.map((run) => run.dom_ms)),
    first_contentful_paint: stats(runs.map((run) => run.first_contentful_paint_ms)),
    explore_request_start: stats(runs.map((run) => run.explore_request_start_ms)),
    explore_response_end: stats(runs.map((run) => run.explore_response_end_ms)),
    script_loaded: stats(runs.map((run) => run.script_response_end_ms)),
    runs: runs.map((run) => Object.fromEntries(Object.entries(run).map(([key, value]) => [key, round(value)]))),
  };
}

/** The API call the page makes (its first page, threshold 0), alone, from Node. */
async function measureApi(origin: string, datasetId: string): Promise<Stats & { clusters: number }> {
  const url = `${origin}/api/v1/explore/${datasetId}?entity_type=IMAGES&threshold=0&page_number=0`;
  let clusters = 0;
  const once = async () => {
    const started = performance.now();
    const response = await fetch(url);
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
    clusters = ((await response.json()) as { clusters: unknown[] }).clusters.length;
    return performance.now() - started;
  };
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await once());
  return { ...stats(times), clusters };
}

/** web/dist's JavaScript, raw and gzipped (zlib level 9, as Vite reports it). */
function bundleSize(): { files: string[]; raw_kb: number; gzip_kb: number } {
  const assets = path.join(WEB_DIST, 'assets');
  const files = fs.readdirSync(assets).filter((name) => name.endsWith('.js'));
  const bytes = files.map((name) => fs.readFileSync(path.join(assets, name)));
  const kb = (n: number) => Math.round((n / 1024) * 10) / 10;
  return {
    files,
    raw_kb: kb(bytes.reduce((sum, file) => sum + file.length, 0)),
    gzip_kb: kb(bytes.reduce((sum, file) => sum + zlib.gzipSync(file, { level: 9 }).length, 0)),
  };
}

function markdown(report: Awaited<ReturnType<typeof run>>): string {
  const { machine, page_100000: big, page_1000: small, api_100000: apiAlone, bundle, ratios } = report;
  const row = (name: string, s: Stats) => `| ${name} | ${s.median_ms} | ${s.p95_ms} | ${s.min_ms} | ${s.max_ms} |`;
  return [
    `# Web Explore: time to first render (${report.date.slice(0, 10)})`,
    '',
    `Machine: ${machine.host}, ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}, ${machine.chromium}; load average at start ${machine.load_average.join(' ')} (shared machine).`,
    '',
    `Explore page of a READY dataset (synthetic, bench:explore's generator), first page at threshold 0: ${CLUSTERS} cluster cards. ${RUNS} navigations each after ${WARMUP} warm-up ones, each in a fresh browser context (cold cache: the bundle is fetched every time), headless Chromium at 1400×1000. First render = from navigation start until the ${CLUSTERS} cards are in the DOM and the next frame is painted. Thumbnails load lazily afterwards (the synthetic media have no thumbnail bytes) and are not part of it.`,
    '',
    '| measure (ms from navigation start) | median | p95 | min | max |',
    '|---|---|---|---|---|',
    row('**first render, 100,000 media**', big.first_render),
    row('cards in the DOM, 100,000 media', big.cards_in_dom),
    row('first contentful paint (app shell), 100,000 media', big.first_contentful_paint),
    row('JS bundle loaded, 100,000 media', big.script_loaded),
    row('Explore API asked, 100,000 media', big.explore_request_start),
    row('Explore API answer in, 100,000 media', big.explore_response_end),
    row('first render, 1,000 media (peer)', small.first_render),
    row('Explore API call alone from Node, 100,000 media (peer; ms of the call)', apiAlone),
    '',
    `Where the time goes (medians, 100,000 media): the bundle is in at ${big.script_loaded.median_ms} ms; parsing it and rendering the shell until the page asks Explore take ${round(big.explore_request_start.median_ms - big.script_loaded.median_ms)} ms; the answer takes ${round(big.explore_response_end.median_ms - big.explore_request_start.median_ms)} ms in the browser (next to the page's other calls: dataset, views, tags, health, the notification stream) against ${apiAlone.median_ms} ms alone from Node; the 100 cards are in the DOM ${round(big.cards_in_dom.median_ms - big.explore_response_end.median_ms)} ms later and painted ${round(big.first_render.median_ms - big.cards_in_dom.median_ms)} ms after that. The dataset's size barely matters (one page of clusters either way): the bundle, the browser's CPU and the request waterfall do.`,
    '',
    `Ratios (medians): page / API call alone = ${ratios.page_over_api}; page at 100,000 / page at 1,000 media = ${ratios.page_100000_over_1000}.`,
    '',
    `JS bundle (web/dist/assets/*.js): ${bundle.raw_kb} KB raw, **${bundle.gzip_kb} KB gzip** (level 9).`,
    '',
    `Targets: first render < ${TARGET_MS} ms — ${big.first_render.median_ms < TARGET_MS && big.first_render.p95_ms < TARGET_MS ? 'met (median and p95)' : 'NOT met'}; bundle < ${TARGET_BUNDLE_KB} KB gzip — ${bundle.gzip_kb < TARGET_BUNDLE_KB ? 'met' : 'NOT met'}.`,
    '',
  ].join('\n');
}

async function run() {
  return withWebBenchStack(NAME, async ({ origin, db, browser }) => {
  const machine = {
    host: os.hostname(),
    ...benchMachine(),
    chromium: `${CHROMIUM_PATH} ${browser.version()}`,
    load_average: os.loadavg().map((load) => Math.round(load * 100) / 100),
  };
  say(`bench:web-explore on ${machine.host}: ${machine.cpu}, ${machine.cores} cores, load ${machine.load_average.join(' ')}`);
  let started = Date.now();
  const big = await seedSyntheticDataset(db, 100_000, 1280);
  const small = await seedSyntheticDataset(db, 1_000, 1280);
  say(`  seeded 100,000 + 1,000 media in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  started = Date.now();
  const apiAlone = await measureApi(origin, big.datasetId);
  if (apiAlone.clusters !== CLUSTERS) throw new Error(`The first page has ${apiAlone.clusters} clusters, not ${CLUSTERS}`);
  say(`  API call alone (100,000): median ${apiAlone.median_ms} ms, p95 ${apiAlone.p95_ms} ms`);
  const page100k = await measurePage(browser, origin, big.datasetId);
  say(`  page (100,000): first render median ${page100k.first_render.median_ms} ms, p95 ${page100k.first_render.p95_ms} ms`);
  const page1k = await measurePage(browser, origin, small.datasetId);
  say(`  page (1,000): first render median ${page1k.first_render.median_ms} ms, p95 ${page1k.first_render.p95_ms} ms`);
  const bundle = bundleSize();
  say(`  bundle: ${bundle.raw_kb} KB, ${bundle.gzip_kb} KB gzip; measured in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return {
    date: new Date().toISOString(),
    machine,
    runs: RUNS,
    warmup: WARMUP,
    clusters: CLUSTERS,
    page_100000: page100k,
    page_1000: page1k,
    api_100000: apiAlone,
    bundle,
    ratios: {
      page_over_api: round(page100k.first_render.median_ms / apiAlone.median_ms),
      page_100000_over_1000: Math.round((page100k.first_render.median_ms / page1k.first_render.median_ms) * 100) / 100,
    },
    targets: { first_render_ms: TARGET_MS, bundle_gzip_kb: TARGET_BUNDLE_KB },
  };
  });
}

async function main(): Promise<void> {
  const report = await run();
  writeReport('web-explore', 'web-explore', report, markdown(report));
}

runBench(main);
