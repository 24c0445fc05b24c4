/**
 * `npm run bench:web-map`: the Map page in headless Chromium (Debian's, as the e2e tests use it) on
 * a READY dataset of 1,000,000 synthetic media (bench:explore's generator: rows, 5 clustering levels,
 * labels, issues straight in Postgres) whose map points are synthetic too: written straight into
 * map_points as blobs of 100 points, each point's blob scattered by its index as the worker's random
 * point order makes it (no vectors, no UMAP: this measures serving and drawing, not the layout). First
 * draw = from navigation start until the first frame with points is painted (the page draws a first
 * page, an even sample, while the rest load; the time every point is drawn is recorded too), each
 * navigation in a fresh browser context (cold). Panning = frames per second counted with
 * requestAnimationFrame while the mouse drags the map round a circle for a few seconds (real input
 * events through the DevTools protocol), with the number of points drawn while moving (the page's
 * level of detail), against the same count with the map idle. Peer in the same run: the same page at
 * a tenth of the points, and the points request alone from Node.
 * Results: bench/results/web-map/web-map-<date>.json and .md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM_PATH } from '../../test/support/browser';
import { benchMachine, percentile, resultsDir, say, timed, writeReport, runBench } from './common';
import { withWebBenchStack } from './webBenchStack';
import { seedMapPoints, seedSyntheticDataset } from './syntheticDataset';

const NAME = 'web-map';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WARMUP = 1;
const PAN_SECONDS = 4;
const TARGET_FIRST_DRAW_MS = 2000;
const TARGET_FPS = 30;
const VIEWPORT = { width: 1400, height: 1000 };
/** Points of the measured map (the peer has a tenth); BENCH_MAP_POINTS for a quick look at fewer. */
const POINTS = Number(process.env.BENCH_MAP_POINTS ?? 1_000_000);
const PEER_POINTS = POINTS / 10;

/**
 * When the map first showed points (its frame turned `partial`, the first page, or `drawn`) and when it
 * showed all of them (`drawn`), each as the frame after it was painted, in ms from navigation start.
 */
const DRAW_PROBE = `(() => {
  const painted = (key, extra) => requestAnimationFrame(() => setTimeout(() => { window[key] = { ms: performance.now(), ...extra }; }));
  new MutationObserver(() => {
    const frame = document.querySelector('.map-frame');
    if (!frame) return;
    const state = frame.getAttribute('data-state');
    const points = Number(frame.getAttribute('data-points'));
    if (!window.__firstMarked && (state === 'partial' || state === 'drawn')) { window.__firstMarked = true; painted('__first', { points }); }
    if (!window.__allMarked && state === 'drawn') { window.__allMarked = true; painted('__drawn', { points }); }
  }).observe(document, { attributes: true, childList: true, subtree: true, attributeFilter: ['data-state'] });
})()`;

type Stats = { median: number; p95: number; min: number; max: number };
const round = (value: number) => Math.round(value * 10) / 10;
function stats(values: number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: round(percentile(sorted, 0.5)), p95: round(percentile(sorted, 0.95)), min: round(sorted[0]), max: round(sorted.at(-1)!) };
}

/** Frames per second and the longest frame while `during` runs, counted with requestAnimationFrame in the page. */
async function framesWhile(page: Page, during: () => Promise<void>): Promise<{ fps: number; p95_frame_ms: number; max_frame_ms: number; frames: number }> {
  await page.evaluate(`(() => { window.__frames = []; const tick = (t) => { window.__frames.push(t); if (!window.__stopFrames) requestAnimationFrame(tick); }; window.__stopFrames = false; requestAnimationFrame(tick); })()`);
  await during();
  const frames = (await page.evaluate(`(() => { window.__stopFrames = true; return window.__frames; })()`)) as number[];
  const intervals = frames.slice(1).map((t, i) => t - frames[i]).sort((a, b) => a - b);
  const seconds = (frames.at(-1)! - frames[0]) / 1000;
  return { fps: round((frames.length - 1) / seconds), p95_frame_ms: round(percentile(intervals, 0.95)), max_frame_ms: round(intervals.at(-1)!), frames: frames.length };
}

/** Drags the map round a circle for PAN_SECONDS (the page's default mouse mode pans). */
async function pan(page: Page, points: number): Promise<{ moves: number; movingPoints: number }> {
  const box = (await page.locator('.map-frame canvas').boundingBox())!;
  const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
  await page.mouse.move(cx + 150, cy);
  await page.mouse.down();
  let moves = 0;
  const until = Date.now() + PAN_SECONDS * 1000;
  while (Date.now() < until) {
    const angle = (moves++ / 60) * 2 * Math.PI;
    await page.mouse.move(cx + 150 * Math.cos(angle), cy + 150 * Math.sin(angle));
  }
  // What the map draws while it moves (its data-moving attribute: the sample's size; none when it draws every point).
  const movingPoints = Number((await page.locator('.map-frame').getAttribute('data-moving')) ?? points);
  await page.mouse.up();
  return { moves, movingPoints };
}

interface Navigation {
  first_points_ms: number;
  first_points: number;
  all_points_ms: number;
  all_points: number;
  summary_end_ms: number;
  points_request_start_ms: number;
  first_page_end_ms: number;
  points_response_end_ms: number;
  points_bytes: number;
  script_response_end_ms: number;
}

async function navigate(browser: Browser, url: string, points: number, measurePan: boolean) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await page.addInitScript(DRAW_PROBE);
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator(`.map-frame[data-state="drawn"][data-points="${points}"]`).waitFor({ timeout: 120_000 });
    await page.waitForFunction('window.__drawn !== undefined', undefined, { timeout: 120_000 });
    const navigation = (await page.evaluate(`(() => {
      const resources = performance.getEntriesByType('resource');
      const pages = resources.filter((entry) => /\\/map\\/points/.test(entry.name));
      const scripts = resources.filter((entry) => /\\/assets\\/.*\\.js$/.test(entry.name));
      const summary = resources.find((entry) => /\\/map\\?/.test(entry.name));
      return {
        summary_end_ms: summary ? summary.responseEnd : -1,
        first_points_ms: window.__first.ms,
        first_points: window.__first.points,
        all_points_ms: window.__drawn.ms,
        all_points: window.__drawn.points,
        points_request_start_ms: pages.length > 0 ? pages[0].startTime : -1,
        first_page_end_ms: pages.length > 0 ? pages[0].responseEnd : -1,
        points_response_end_ms: pages.length > 0 ? Math.max(...pages.map((entry) => entry.responseEnd)) : -1,
        points_bytes: pages.reduce((sum, entry) => sum + entry.encodedBodySize, 0),
        script_response_end_ms: Math.max(0, ...scripts.map((entry) => entry.responseEnd)),
      };
    })()`)) as Navigation;
    if (!measurePan) return { navigation };
    const idle = await framesWhile(page, () => page.waitForTimeout(PAN_SECONDS * 1000));
    let dragged = { moves: 0, movingPoints: 0 };
    const panning = await framesWhile(page, async () => {
      dragged = await pan(page, points);
    });
    return { navigation, idle, panning: { ...panning, mouse_moves: dragged.moves, points_drawn_while_moving: dragged.movingPoints } };
  } finally {
    await context.close();
  }
}

async function measurePage(browser: Browser, origin: string, datasetId: string, points: number) {
  const url = `${origin}/datasets/${datasetId}/map`;
  for (let i = 0; i < WARMUP; i++) await navigate(browser, url, points, false);
  const runs: Array<Awaited<ReturnType<typeof navigate>>> = [];
  for (let i = 0; i < RUNS; i++) runs.push(await navigate(browser, url, points, true));
  const pick = (key: keyof Navigation) => stats(runs.map((run) => run.navigation[key]));
  return {
    points,
    first_draw_ms: pick('first_points_ms'),
    first_draw_points: pick('first_points'),
    all_drawn_ms: pick('all_points_ms'),
    summary_end_ms: pick('summary_end_ms'),
    points_request_start_ms: pick('points_request_start_ms'),
    first_page_end_ms: pick('first_page_end_ms'),
    points_response_end_ms: pick('points_response_end_ms'),
    script_loaded_ms: pick('script_response_end_ms'),
    points_bytes: runs[0].navigation.points_bytes,
    panning_fps: stats(runs.map((run) => run.panning!.fps)),
    panning_p95_frame_ms: stats(runs.map((run) => run.panning!.p95_frame_ms)),
    idle_fps: stats(runs.map((run) => run.idle!.fps)),
    panning_points: stats(runs.map((run) => run.panning!.points_drawn_while_moving)),
    runs,
  };
}

/** The points request alone from Node (the whole map in one page), RUNS times after WARMUP. */
async function measurePointsRequest(origin: string, datasetId: string): Promise<Stats & { bytes: number }> {
  const url = `${origin}/api/v1/dataset/${datasetId}/map/points`;
  let bytes = 0;
  const once = async () => {
    const { seconds } = await timed(async () => {
      const response = await fetch(url);
      if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
      bytes = (await response.arrayBuffer()).byteLength;
    });
    return seconds * 1000;
  };
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await once());
  return { ...stats(times), bytes };
}

type PageFigures = Awaited<ReturnType<typeof measurePage>>;

/** The figures of bench/results/web-map/<PREVIOUS>.json, the run before the first page and level of detail (first draw = every point then). */
const PREVIOUS = 'web-map-2026-11-27';

function comparison(report: Awaited<ReturnType<typeof run>>): string[] {
  const file = path.join(resultsDir('web-map'), `${PREVIOUS}.json`);
  if (POINTS !== 1_000_000 || !fs.existsSync(file)) return [];
  const before = JSON.parse(fs.readFileSync(file, 'utf8')).page_1000000 as { first_draw_ms: Stats; panning_fps: Stats };
  const now = report.page_1000000;
  const ratio = (a: number, b: number) => (a / b).toFixed(1);
  return [
    `Against ${PREVIOUS} (medians, 1,000,000 points): first frame with points ${before.first_draw_ms.median} → ${now.first_draw_ms.median} ms (${ratio(before.first_draw_ms.median, now.first_draw_ms.median)}× sooner; every point drawn: ${now.all_drawn_ms.median} ms, ${ratio(before.first_draw_ms.median, now.all_drawn_ms.median)}×); panning ${before.panning_fps.median} → ${now.panning_fps.median} frames/s (${ratio(now.panning_fps.median, before.panning_fps.median)}×). Then every frame drew all 1,000,000 points; now a moving frame draws ${now.panning_points.median.toLocaleString('en')}.`,
    '',
  ];
}

function markdown(report: Awaited<ReturnType<typeof run>>): string {
  const { machine, page_1000000: big, page_100000: peer, points_request_1000000: alone } = report;
  const [bigLabel, peerLabel] = [`${POINTS.toLocaleString('en')} points`, `${PEER_POINTS.toLocaleString('en')} points (peer)`];
  const row = (name: string, s: Stats, unit = 'ms') => `| ${name} | ${s.median} | ${s.p95} | ${s.min} | ${s.max} | ${unit} |`;
  const rows = (label: string, figures: PageFigures) => [
    row(`**first draw (first frame with points), ${label}**`, figures.first_draw_ms),
    row(`points in that first frame, ${label}`, figures.first_draw_points, 'points'),
    row(`every point drawn, ${label}`, figures.all_drawn_ms),
    row(`JS loaded, ${label}`, figures.script_loaded_ms),
    row(`map summary in (GET …/map), ${label}`, figures.summary_end_ms),
    row(`points asked, ${label}`, figures.points_request_start_ms),
    row(`first page in, ${label}`, figures.first_page_end_ms),
    row(`every page in, ${label}`, figures.points_response_end_ms),
    row(`**panning, ${label}**`, figures.panning_fps, 'frames/s'),
    row(`points drawn while panning, ${label}`, figures.panning_points, 'points'),
    row(`panning p95 frame, ${label}`, figures.panning_p95_frame_ms),
    row(`idle, ${label}`, figures.idle_fps, 'frames/s'),
  ];
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  return [
    `# Web map: first draw and panning (${report.date.slice(0, 10)})`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}, ${machine.chromium}; WebGL: ${machine.webgl}; load average at start ${machine.load_average.join(' ')} (shared machine).`,
    '',
    `Map page of a READY synthetic dataset (bench:explore's generator) whose map points are synthetic: written straight into \`map_points\` as blobs of 100 points, a point's blob scattered by its index as the worker's random point order makes it; no vectors and no UMAP ran (this measures serving and drawing, not the layout). ${RUNS} navigations per size after ${WARMUP} warm-up, each in a fresh browser context (cold cache) at ${VIEWPORT.width}×${VIEWPORT.height}. First draw = navigation start until the first frame with points on screen is painted: the page draws the first page of points (an even sample, see the points row) while the rest load, then every point (the row \`every point drawn\`). Panning = requestAnimationFrame frames per second while the mouse drags the map round a circle for ${PAN_SECONDS} s (real input events via the DevTools protocol), after every point is drawn; while the camera moves the page draws only a sample (the row \`points drawn while panning\`) and every point again once the camera rests. Idle = the same count with the map still.`,
    '',
    ...comparison(report),
    '',
    '| measure | median | p95 | min | max | unit |',
    '|---|---|---|---|---|---|',
    ...rows(bigLabel, big),
    ...rows(peerLabel, peer),
    row(`points request alone from Node, ${bigLabel} (one page)`, alone),
    '',
    `Points page: ${(big.points_bytes / 2 ** 20).toFixed(1)} MiB for ${bigLabel} (11 bytes a point, uncompressed).`,
    '',
    `Targets (set for 1,000,000 points) at ${bigLabel}: first draw < ${TARGET_FIRST_DRAW_MS} ms — ${met(big.first_draw_ms.median < TARGET_FIRST_DRAW_MS)} (median ${big.first_draw_ms.median} ms); panning ≥ ${TARGET_FPS} frames/s — ${met(big.panning_fps.median >= TARGET_FPS)} (median ${big.panning_fps.median}).`,
    '',
  ].join('\n');
}

async function run() {
  return withWebBenchStack(NAME, async ({ origin, db, browser }) => {
  const probe = await browser.newPage();
  const webgl = (await probe.evaluate(`(() => {
    const gl = document.createElement('canvas').getContext('webgl');
    if (!gl) return 'none';
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    return info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
  })()`)) as string;
  await probe.close();
  const machine = {
    host: os.hostname(),
    ...benchMachine(),
    chromium: `${CHROMIUM_PATH} ${browser.version()}`,
    webgl,
    load_average: os.loadavg().map((load) => Math.round(load * 100) / 100),
  };
  say(`bench:web-map on ${machine.host}: ${machine.cpu}, ${machine.cores} cores, load ${machine.load_average.join(' ')}, WebGL ${webgl}`);
  const seeded = await timed(async () => {
    const big = await seedSyntheticDataset(db, POINTS, 1280);
    await seedMapPoints(db, big.versionId, POINTS);
    const small = await seedSyntheticDataset(db, PEER_POINTS, 1280);
    await seedMapPoints(db, small.versionId, PEER_POINTS);
    return { big, small };
  });
  say(`  seeded ${POINTS.toLocaleString('en')} + ${PEER_POINTS.toLocaleString('en')} media and their map points in ${seeded.seconds.toFixed(1)} s`);
  const { big, small } = seeded.value;

  const alone = await measurePointsRequest(origin, big.datasetId);
  say(`  points request alone (${POINTS.toLocaleString('en')}): median ${alone.median} ms, ${(alone.bytes / 2 ** 20).toFixed(1)} MiB`);
  const page1m = await measurePage(browser, origin, big.datasetId, POINTS);
  say(`  page (${POINTS.toLocaleString('en')}): first draw median ${page1m.first_draw_ms.median} ms (${page1m.first_draw_points.median} points; all ${page1m.all_drawn_ms.median} ms), panning ${page1m.panning_fps.median} frames/s (idle ${page1m.idle_fps.median})`);
  const page100k = await measurePage(browser, origin, small.datasetId, PEER_POINTS);
  say(`  page (${PEER_POINTS.toLocaleString('en')}): first draw median ${page100k.first_draw_ms.median} ms (${page100k.first_draw_points.median} points; all ${page100k.all_drawn_ms.median} ms), panning ${page100k.panning_fps.median} frames/s (idle ${page100k.idle_fps.median})`);
  return {
    date: new Date().toISOString(),
    machine,
    synthetic: 'map points written straight into map_points (one blob per threshold-4 cluster); no vectors, no layout computed',
    runs: RUNS,
    warmup: WARMUP,
    pan_seconds: PAN_SECONDS,
    viewport: VIEWPORT,
    seed_seconds: round(seeded.seconds),
    points_request_1000000: alone,
    page_1000000: page1m,
    page_100000: page100k,
    targets: { first_draw_ms: TARGET_FIRST_DRAW_MS, panning_fps: TARGET_FPS },
  };
  });
}

async function main(): Promise<void> {
  const report = await run();
  writeReport('web-map', POINTS === 1_000_000 ? 'web-map' : `web-map-${POINTS}`, report, markdown(report));
}

runBench(main);
