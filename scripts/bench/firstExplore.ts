/**
 * `npm run bench:first-explore [-- N]`: the first Explore after a task wrote N media (default 100,000),
 * as a fresh install meets it: a synthetic READY dataset written straight into never-analyzed tables
 * (bench:explore's generator), Explore's page queries called as the API calls them, RUNS times each,
 * before and after the refresh of planner statistics that a task's commit now runs
 * (analyzeExploredTables), and what that refresh costs. Results go to
 * bench/results/first-explore/first-explore-<N>-<date>.json and .md.
 */
import os from 'node:os';
import type { Db } from '../../db/connection';
import { exploreClusters } from '../../db/repositories/explore';
import { analyzeExploredTables } from '../../db/repositories/plannerStatistics';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { benchMachine, percentile, say, timed, withBenchDatabase, writeReport, runBench } from './common';
import { seedSyntheticDataset } from './syntheticDataset';

const count = Number(process.argv[2] ?? 100_000);
const RUNS = 5;

const median = async (fn: () => Promise<unknown>): Promise<number> => {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) ms.push((await timed(fn)).seconds * 1000);
  return Math.round(percentile(ms.sort((a, b) => a - b), 0.5) * 10) / 10;
};

async function measure(db: Db) {
  const { versionId, tagId } = await seedSyntheticDataset(db, count, 4, { analyze: false });
  const issue: MediaFilter = { kind: 'issue', issue: 'blur' };
  const pages: Record<string, () => Promise<unknown>> = {
    'plain page 0, threshold 0': () => exploreClusters(db, { versionId, threshold: 0, page: 0, filters: [] }),
    'plain page 0, threshold 2': () => exploreClusters(db, { versionId, threshold: 2, page: 0, filters: [] }),
    'tags filter, threshold 0': () => exploreClusters(db, { versionId, threshold: 0, page: 0, filters: [{ kind: 'tags', anyOf: [tagId] }] }),
    'issues filter, threshold 0': () => exploreClusters(db, { versionId, threshold: 0, page: 0, filters: [issue] }),
  };
  const before: Record<string, number> = {};
  for (const [name, page] of Object.entries(pages)) before[name] = await median(page);
  const analyzeMs = Math.round((await timed(() => analyzeExploredTables(db))).seconds * 1000);
  const after: Record<string, number> = {};
  for (const [name, page] of Object.entries(pages)) after[name] = await median(page);
  return { before, after, analyzeMs };
}

async function main(): Promise<void> {
  const load = os.loadavg();
  say(`bench:first-explore: ${count} media on ${os.cpus()[0].model}, ${os.cpus().length} cores; load average ${load.map((v) => v.toFixed(2)).join(' ')}`);
  const { before, after, analyzeMs } = await withBenchDatabase('first-explore', (db) => measure(db));
  const date = new Date().toISOString();
  const ratios = Object.fromEntries(Object.keys(before).map((name) => [name, Math.round((before[name] / after[name]) * 10) / 10]));
  const report = { date, media: count, runs: RUNS, machine: benchMachine(), load_average_at_start: load, analyze_ms: analyzeMs, before_ms: before, after_ms: after, ratio: ratios };
  const markdown = [
    `# The first Explore after a task, at ${count.toLocaleString('en')} media (${date.slice(0, 10)})`,
    '',
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores (shared with other work), Node ${report.machine.node}; load average at start ${load.map((v) => v.toFixed(2)).join(' ')}.`,
    `Median of ${RUNS} calls each (ms), on never-analyzed tables and then after analyzeExploredTables, which took ${analyzeMs} ms.`,
    '',
    '| page | never analyzed | analyzed | ratio |',
    '|---|---|---|---|',
    ...Object.keys(before).map((name) => `| ${name} | ${before[name]} | ${after[name]} | ${ratios[name]}× |`),
    '',
  ].join('\n');
  writeReport('first-explore', `first-explore-${count}`, report, markdown);
}

runBench(main);
