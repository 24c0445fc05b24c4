/**
 * `npm run bench:scale [-- N] [--skip analysis,reindex,explore,snapshot] [--pinned] [--reuse DIR [--database NAME]] [--report PART=FILE,...]`: the figures issue 26 asks for at N media
 * (default 100,000), gathered from the benches that measure each part, run one after another in processes of their
 * own. Each seeds its own synthetic dataset (1280-d vectors around 1,000 centres), so none measures another's leftovers:
 * - bench:analysis: the single-activity analysis (the baseline) and the fan-out with 1 and 2 worker processes
 *   (`--pinned`: each on a core of its own, scaling_2_over_1_pinned);
 * - bench:reindex: 1,000 media added, the incremental reindex against a full one;
 * - bench:explore --queries-only: p95 of every Explore query kind through the API;
 * - bench:snapshot: snapshot, restore and clone through the API.
 * Writes bench/results/scale/scale-<N>-<date>.json and .md, naming the result file each figure comes from. `--report
 * analysis=bench/results/analysis/analysis-N-<date>.json` takes a part's figures from a report it wrote before instead of running
 * it again (a run that stopped after a part; at 1,000,000 the analysis part alone is 50 minutes).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchDir, benchMachine, resultsDir, runBench, say, timed, writeReport } from './common';

const PARTS = ['analysis', 'reindex', 'explore', 'snapshot'] as const;
type Part = (typeof PARTS)[number];

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    skip: { type: 'string', default: '' },
    report: { type: 'string', default: '' },
    reuse: { type: 'string' },
    database: { type: 'string', default: 'bench_explore' },
    pinned: { type: 'boolean', default: false },
  },
});
const count = Number(positionals[0] ?? 100_000);
const skipped = new Set(args.skip!.split(',').filter(Boolean));
const reported = new Map(
  args.report!.split(',').filter(Boolean).map((entry) => {
    const [part, file] = entry.split('=');
    if (!PARTS.includes(part as Part) || !file) throw new Error(`--report ${entry}: want PART=FILE, PART one of ${PARTS.join(', ')}`);
    return [part as Part, file];
  }),
);
const reuse = args.reuse ? ['--reuse', args.reuse] : [];

/**
 * The command line of each part and the stem of the report it writes. With `--reuse DIR` (a scratch bench:explore
 * kept), the analysis, the reindex (on a copy, without the full one) and Explore run on that dataset, not seeds of
 * their own: at 1,000,000 each seed costs 40 minutes.
 */
const commands: Record<Part, { script: string; args: string[]; stem: string }> = {
  analysis: {
    script: 'analysis.ts',
    args: [String(count), '--workers', '1,2', ...(args.pinned ? ['--pinned'] : []), ...reuse, ...(args.reuse ? ['--database', args.database!] : [])],
    stem: `analysis-${count}`,
  },
  reindex: args.reuse
    ? { script: 'reindex.ts', args: [String(count), '--added', '1000', '--from-analysis', args.reuse, '--database', args.database!, '--skip-full'], stem: `reindex-${count}-incremental` }
    : { script: 'reindex.ts', args: [String(count), '--added', '1000'], stem: `reindex-${count}` },
  explore: { script: 'explore.ts', args: [String(count), '--label', 'scale', '--queries-only', ...reuse], stem: `explore-${count}-scale` },
  snapshot: { script: 'snapshot.ts', args: [String(count)], stem: `snapshot-${count}` },
};

/** Runs one part's bench to its end and reads the report it wrote. */
async function runPart(part: Part): Promise<{ file: string; seconds: number; report: never }> {
  const { script, args: partArgs, stem } = commands[part];
  const started = Date.now();
  say(`\n== ${part}: ${script} ${partArgs.join(' ')}`);
  const { seconds } = await timed(
    () =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, script), ...partArgs], { stdio: 'inherit' });
        child.on('error', reject);
        child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${script} exited with ${code ?? signal}`))));
      }),
  );
  const dir = resultsDir(part);
  const written = fs
    .readdirSync(dir)
    // A bench names a second report of the day <stem>-<date>-2.json, and so on.
    .filter((name) => new RegExp(`^${stem}-\\d{4}-\\d{2}-\\d{2}(-\\d+)?\\.json$`).test(name))
    .map((name) => path.join(dir, name))
    .filter((file) => fs.statSync(file).mtimeMs >= started)
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  if (written.length === 0) throw new Error(`${script} wrote no ${stem}-<date>.json`);
  return { file: path.relative(benchDir, written[0]), seconds, report: JSON.parse(fs.readFileSync(written[0], 'utf8')) as never };
}

// The parts of each report read here, as the part wrote them.
interface AnalysisRun {
  workers: number;
  total_seconds: number;
  searchers: Array<{ chunks: unknown[] }>;
  peak_rss_mib_per_worker: number;
  peak_rss_anon_mib_per_worker?: number;
  peak_rss_file_mib_per_worker?: number;
  clusters_per_threshold: number[];
  stored_graph_bytes: number;
}
interface AnalysisReport {
  index_bytes?: number;
  scaling_2_over_1?: { knn: number; total: number };
  scaling_2_over_1_pinned?: { knn: number; total: number };
  baseline: { wall_seconds: number; rss_mib: { peak: number }; sampled_peaks?: { anon_mib: number; file_mib: number }; clusters_per_threshold: number[] };
  fanout: AnalysisRun[];
}
interface ReindexReport {
  incremental: { total_seconds: number };
  full?: { total_seconds: number };
  items_whose_lists_differ?: number;
}
interface ExploreReport {
  queries: Array<{ query: string; p95_ms: number }>;
}
interface SnapshotReport {
  create: { seconds: number };
  restore: { seconds: number };
  clone: { seconds: number };
}

function analysisFigures({ baseline, fanout, index_bytes, scaling_2_over_1, scaling_2_over_1_pinned }: AnalysisReport) {
  const byWorkers = <T>(pick: (run: AnalysisRun) => T) => Object.fromEntries(fanout.map((run) => [run.workers, pick(run)]));
  return {
    analysis_baseline_seconds: baseline.wall_seconds,
    analysis_seconds: byWorkers((run) => run.total_seconds),
    analysis_chunks_per_worker: byWorkers((run) => run.searchers.map((searcher) => searcher.chunks.length)),
    analysis_speedup_over_baseline: byWorkers((run) => baseline.wall_seconds / run.total_seconds),
    peak_rss_mb_per_worker: { baseline: baseline.rss_mib.peak, ...byWorkers((run) => run.peak_rss_mib_per_worker) },
    // Of which anonymous memory (heap, buffers) and file-backed pages (the memory-mapped index, shared page cache).
    peak_rss_anon_mb_per_worker: { baseline: baseline.sampled_peaks?.anon_mib, ...byWorkers((run) => run.peak_rss_anon_mib_per_worker) },
    peak_rss_file_mb_per_worker: { baseline: baseline.sampled_peaks?.file_mib, ...byWorkers((run) => run.peak_rss_file_mib_per_worker) },
    same_clusters_as_baseline: byWorkers((run) => JSON.stringify(run.clusters_per_threshold) === JSON.stringify(baseline.clusters_per_threshold)),
    index_bytes,
    stored_graph_bytes: fanout[0]?.stored_graph_bytes,
    scaling_2_over_1,
    scaling_2_over_1_pinned,
  };
}

function reindexFigures(report: ReindexReport) {
  return {
    reindex_after_1000_seconds: report.incremental.total_seconds,
    reindex_full_seconds: report.full?.total_seconds,
    reindex_items_whose_lists_differ: report.items_whose_lists_differ,
  };
}

function exploreFigures(report: ExploreReport) {
  return { explore_p95_ms: Object.fromEntries(report.queries.map((query) => [query.query, query.p95_ms])) };
}

function snapshotFigures(report: SnapshotReport) {
  return { snapshot_seconds: report.create.seconds, restore_seconds: report.restore.seconds, clone_seconds: report.clone.seconds };
}

const figuresOf: Record<Part, (report: never) => Record<string, unknown>> = {
  analysis: analysisFigures,
  reindex: reindexFigures,
  explore: exploreFigures,
  snapshot: snapshotFigures,
};

function markdown(report: Record<string, unknown> & { date: string; machine: ReturnType<typeof benchMachine> }): string {
  const rows = Object.entries(report)
    .filter(([key]) => !['date', 'machine', 'sources', 'load_average'].includes(key))
    .map(([key, value]) => `| ${key} | ${typeof value === 'object' ? JSON.stringify(value) : String(value)} |`);
  const { machine } = report;
  return [
    `# bench:scale at ${count.toLocaleString('en-US')} media (${report.date.slice(0, 10)})`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}; load average ${JSON.stringify(report.load_average)}.`,
    `Each figure comes from the part's own report: ${JSON.stringify(report.sources)}.`,
    '',
    '| figure | value |',
    '|---|---|',
    ...rows,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  say(`bench:scale: ${count} media on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const loadAverage = [os.loadavg()];
  const sources: Record<string, string> = {};
  const partSeconds: Record<string, number | undefined> = {};
  let figures: Record<string, unknown> = {};
  for (const part of PARTS.filter((name) => !skipped.has(name))) {
    const given = reported.get(part);
    const { file, seconds, report } = given
      ? { file: path.relative(benchDir, path.resolve(given)), seconds: undefined, report: JSON.parse(fs.readFileSync(given, 'utf8')) as never }
      : await runPart(part);
    sources[part] = file;
    partSeconds[part] = seconds;
    figures = { ...figures, ...figuresOf[part](report) };
    loadAverage.push(os.loadavg());
  }
  const report = { date: new Date().toISOString(), machine: benchMachine(), media: count, reused: args.reuse, ...figures, part_seconds: partSeconds, load_average: loadAverage, sources };
  writeReport('scale', `scale-${count}`, report, markdown(report));
}

runBench(main);
