/**
 * `npm run bench:explore-facets [-- N]`: Explore pages filtered by one tag or one issue type at N media
 * (default 250,000; bench:explore's synthetic READY dataset), each page counted from the rows (every
 * match visited) and then read from the per-cluster facet counts, in the same run, RUNS calls each; a
 * label page, which no count serves, as the peer both times; with what counting the facets costs and
 * what tagging 1,000 media costs with and without counts to keep. Results go to
 * bench/results/explore-facets/explore-facets-<N>-<date>.json and .md.
 */
import os from 'node:os';
import type { Db } from '../../db/connection';
import { countFacets, forgetFacetCounts } from '../../db/repositories/clusterFacets';
import { exploreClusters } from '../../db/repositories/explore';
import { tagMedia, untagMedia } from '../../db/repositories/tags';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { benchMachine, percentile, say, timed, withBenchDatabase, writeReport, runBench } from './common';
import { seedSyntheticDataset } from './syntheticDataset';

const count = Number(process.argv[2] ?? 250_000);
const RUNS = 7;

const ms = async (fn: () => Promise<unknown>) => Math.round((await timed(fn)).seconds * 10_000) / 10;
const median = async (fn: () => Promise<unknown>): Promise<number> => {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await ms(fn));
  return percentile(runs.sort((a, b) => a - b), 0.5);
};

async function measure(db: Db) {
  const { datasetId, versionId, tagId } = await seedSyntheticDataset(db, count, 4);
  const label: string = (await db('media_labels').where({ version_id: versionId }).first('label')).label;
  const filters: Record<string, MediaFilter> = {
    'one tag (10 % of the media)': { kind: 'tags', anyOf: [tagId] },
    'one issue type (blur, 3 %)': { kind: 'issue', issue: 'blur' },
    [`peer: one label (${label}, 1 %), never counted`]: { kind: 'labels', anyOf: [label] },
  };
  const pages = Object.entries(filters).flatMap(([name, filter]) =>
    [0, 2].map((threshold) => ({ name: `${name}, threshold ${threshold}`, run: () => exploreClusters(db, { versionId, threshold, page: 0, filters: [filter] }) })));
  const rows: Record<string, number> = {};
  for (const page of pages) rows[page.name] = await median(page.run);
  const countMs = await ms(() => countFacets(db, versionId));
  const counted: Record<string, number> = {};
  for (const page of pages) counted[page.name] = await median(page.run);
  const ids: string[] = (await db('media').where({ version_id: versionId }).whereNotIn('id', db('media_tags').where({ version_id: versionId }).select('media_id')).limit(1000).select('id')).map((row) => row.id);
  const tagCycle = async () => ms(async () => (await tagMedia(db, datasetId, tagId, { mediaIds: ids }), await untagMedia(db, datasetId, tagId, { mediaIds: ids })));
  const tagWithCounts = await tagCycle();
  await forgetFacetCounts(db, versionId);
  const tagWithoutCounts = await tagCycle();
  return { rows, counted, countMs, tagWithCounts, tagWithoutCounts };
}

async function main(): Promise<void> {
  const load = os.loadavg();
  say(`bench:explore-facets: ${count} media on ${os.cpus()[0].model}, ${os.cpus().length} cores; load average ${load.map((v) => v.toFixed(2)).join(' ')}`);
  const result = await withBenchDatabase('explore-facets', (db) => measure(db));
  const date = new Date().toISOString();
  const ratio = Object.fromEntries(Object.keys(result.rows).map((name) => [name, Math.round((result.rows[name] / result.counted[name]) * 10) / 10]));
  const report = {
    date, media: count, runs: RUNS, machine: benchMachine(), load_average_at_start: load,
    counted_from_rows_ms: result.rows, from_facet_counts_ms: result.counted, ratio,
    count_facets_ms: result.countMs, tag_and_untag_1000_ms: { keeping_counts: result.tagWithCounts, without_counts: result.tagWithoutCounts },
  };
  const markdown = [
    `# Filtered Explore pages from per-cluster facet counts, at ${count.toLocaleString('en')} media (${date.slice(0, 10)})`,
    '',
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores (shared with other work), Node ${report.machine.node}; load average at start ${load.map((v) => v.toFixed(2)).join(' ')}.`,
    `Median of ${RUNS} calls of Explore's page query each (ms), in process against an embedded Postgres. Counting the version's facets took ${result.countMs} ms;`,
    `tagging and untagging 1,000 media took ${result.tagWithCounts} ms keeping the counts, ${result.tagWithoutCounts} ms without counts to keep.`,
    '',
    '| page 0 filtered by | counted from the rows | from the facet counts | ratio |',
    '|---|---|---|---|',
    ...Object.keys(result.rows).map((name) => `| ${name} | ${result.rows[name]} | ${result.counted[name]} | ${ratio[name]}× |`),
    '',
  ].join('\n');
  writeReport('explore-facets', `explore-facets-${count}`, report, markdown);
}

runBench(main);
