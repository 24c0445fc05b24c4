/**
 * `npm run bench:map-server [-- N]`: the map's server side at N points (default 1,000,000) on a synthetic
 * READY dataset (bench:explore's generator, map points written straight into `map_points`), called
 * through the services as the API calls them, each figure the median of RUNS:
 * - the summary and legends (`GET …/map`) and the first page of points (20,000, `GET …/map/points`),
 *   cold (the dataset just changed, so its cached summary is stale) and warm (cached), and a
 *   page's revalidation by its ETag (what a 304 costs);
 * - a lasso (VQL map region) in Explore and as a selection count (what tagging it reads), for a
 *   region holding about 10 % and about 50 % of the points, beside peers in the same run: Explore
 *   without a filter and with a labels filter.
 * Results go to bench/results/map-server/map-server-<N>-<date>.json and .md.
 */
import os from 'node:os';
import type { Db } from '../../db/connection';
import { getDatasetAccess } from '../../db/repositories/datasets';
import { exploreClusters } from '../../db/repositories/explore';
import { countSelectedMedia } from '../../db/repositories/selection';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { datasetMap, datasetMapPage } from '../../services/map';
import { benchMachine, percentile, say, timed, withBenchDatabase, writeReport, runBench } from './common';
import { seedMapPoints, seedSyntheticDataset } from './syntheticDataset';

const count = Number(process.argv[2] ?? 1_000_000);
const RUNS = 5;
const FIRST_PAGE = 20_000;

type Stats = { median: number; p95: number; min: number; max: number };
const stats = (values: number[]): Stats => {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 10) / 10;
  return { median: round(percentile(sorted, 0.5)), p95: round(percentile(sorted, 0.95)), min: round(sorted[0]), max: round(sorted[sorted.length - 1]) };
};

async function runs(fn: () => Promise<unknown>, before?: () => Promise<unknown>): Promise<Stats> {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await before?.();
    ms.push((await timed(fn)).seconds * 1000);
  }
  return stats(ms);
}

/** A regular polygon of `vertices` round (cx, cy). */
const polygonAround = (cx: number, cy: number, radius: number, vertices: number): Array<[number, number]> =>
  Array.from({ length: vertices }, (_, i) => [cx + radius * Math.cos((2 * Math.PI * i) / vertices), cy + radius * Math.sin((2 * Math.PI * i) / vertices)]);

async function measure(db: Db, userId: string) {
  const started = Date.now();
  const { datasetId, versionId } = await seedSyntheticDataset(db, count, 4);
  await seedMapPoints(db, versionId, count);
  await db.raw('ANALYZE');
  const layoutId: string = (await db('dataset_versions').where({ id: versionId }).first('map_layout_id')).map_layout_id;
  say(`  seeded ${count} media with map points in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const access = await getDatasetAccess(db, datasetId, userId);
  if (access.kind !== 'granted') throw new Error('the bench user cannot read its dataset');
  const dataset = access.dataset;
  // A change of the dataset (its row's updated_at) makes the cached summary stale: the next request computes it again.
  const touch = () => db('datasets').where({ id: datasetId }).update({ updated_at: db.fn.now() });
  const page = { threshold: 0, offset: 0, limit: FIRST_PAGE };

  const figures: Record<string, Stats> = {};
  figures['summary (GET …/map), cold'] = await runs(() => datasetMap(db, dataset, 0), touch);
  figures['summary (GET …/map), warm'] = await runs(() => datasetMap(db, dataset, 0));
  figures[`first page (${FIRST_PAGE.toLocaleString('en')} points), cold`] = await runs(async () => (await datasetMapPage(db, dataset, page)).read(), touch);
  figures[`first page (${FIRST_PAGE.toLocaleString('en')} points), warm`] = await runs(async () => (await datasetMapPage(db, dataset, page)).read());
  figures['page revalidation (ETag only, a 304)'] = await runs(() => datasetMapPage(db, dataset, page));

  const inside = async (polygon: Array<[number, number]>) => countSelectedMedia(db, versionId, { filters: [{ kind: 'mapRegion', layoutId, polygon }] });
  // The seeded points lie on curves across [-0.9, 0.9]²: circles round the centre of growing radius hold growing shares.
  const regions: Array<{ name: string; polygon: Array<[number, number]>; points: number }> = [];
  for (const [name, share] of [['about 10 %', 0.1], ['about 50 %', 0.5]] as const) {
    let [low, high] = [0.01, 1.5];
    let polygon = polygonAround(0, 0, high, 200);
    for (let step = 0; step < 12; step++) {
      const mid = (low + high) / 2;
      polygon = polygonAround(0, 0, mid, 200);
      if ((await inside(polygon)) / count < share) low = mid;
      else high = mid;
    }
    regions.push({ name, polygon, points: await inside(polygon) });
  }
  const labels: MediaFilter = { kind: 'labels', anyOf: [(await db('media_labels').where({ version_id: versionId }).first('label')).label] };
  const explore = (filters: MediaFilter[]) => () => exploreClusters(db, { versionId, threshold: 0, page: 0, filters });
  figures['Explore, no filter (peer)'] = await runs(explore([]));
  figures['Explore, labels filter (peer)'] = await runs(explore([labels]));
  figures['selection count, labels filter (peer)'] = await runs(() => countSelectedMedia(db, versionId, { filters: [labels] }));
  for (const region of regions) {
    const filter: MediaFilter = { kind: 'mapRegion', layoutId, polygon: region.polygon };
    figures[`Explore, map region of 200 vertices, ${region.name} (${region.points.toLocaleString('en')} points)`] = await runs(explore([filter]));
    figures[`selection count (what tagging reads), map region, ${region.name}`] = await runs(() => countSelectedMedia(db, versionId, { filters: [filter] }));
  }
  return { figures, labelMatches: await countSelectedMedia(db, versionId, { filters: [labels] }) };
}

async function main(): Promise<void> {
  say(`bench:map-server: ${count} points on ${os.cpus()[0].model}, ${os.cpus().length} cores; load average ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  const load = os.loadavg();
  const { figures, labelMatches } = await withBenchDatabase('map-server', (db, admin) => measure(db, admin.id));
  const date = new Date().toISOString();
  const report = { date, points: count, runs: RUNS, machine: benchMachine(), load_average_at_start: load, label_filter_matches: labelMatches, figures };
  const rows = Object.entries(figures).map(([name, s]) => `| ${name} | ${s.median} | ${s.p95} | ${s.min} | ${s.max} |`);
  const markdown = [
    `# Map, server side, at ${count.toLocaleString('en')} points (${date.slice(0, 10)})`,
    '',
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores (shared with other work), Node ${report.machine.node}; load average at start ${load.map((v) => v.toFixed(2)).join(' ')}.`,
    `Services called in process against an embedded Postgres, ${RUNS} runs each (ms). Cold = the dataset changed just before, so the cached summary and legends are computed again. The labels peer matches ${labelMatches.toLocaleString('en')} media.`,
    '',
    '| measure | median | p95 | min | max |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  writeReport('map-server', `map-server-${count}`, report, markdown);
}

runBench(main);
