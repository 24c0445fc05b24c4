/**
 * `npm run bench:cluster-stage -- --reuse DIR [--database NAME] [--label L] [--search K]`: the analysis's final step
 * (clusterStoredGraph: clustering, scores, map, writes) alone, in a process of its own, on a dataset kept by
 * `bench:analysis --keep` (database bench_analysis) or `bench:explore --keep` (`--database bench_explore`). The first
 * run on a scratch searches its kNN graph once (one worker process, as bench:analysis does) and keeps the plan; later
 * runs reuse the stored graph, so two commits' final steps can be compared on the same graph, one after the other.
 * Wall time, the process's peak RSS (VmHWM, and sampled anonymous / file-backed peaks) and Postgres's time by
 * statement (pg_stat_statements: the scratch's Postgres is restarted once to load it) go to
 * bench/results/cluster-stage/cluster-stage-<N>-<date>.json and .md. `--search K` measures a searching worker instead: K of the
 * plan's chunks searched again (searchKnnChunk, storing the same hits), to search-stage-<N>-<date>.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { createDb, migrateLatest } from '../../db/connection';
import { indexItemCount } from '../../db/repositories/media';
import { headVersion } from '../../db/repositories/versions';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { benchMachine, freePort, runBench, say, timed, withClient, writeReport } from './common';
import type { FanoutStageResult } from './fanoutStage';
import { writeKnnPlan } from './knnPlan';
import type { KnnPlan } from '../../workflows/contracts';
import { runStage } from './nodeProcesses';
import { resetStatementStats, statementStats, statementText, withStatementStatsLoaded } from './statementStats';

const { values: args } = parseArgs({
  options: { reuse: { type: 'string' }, database: { type: 'string', default: 'bench_analysis' }, label: { type: 'string', default: '' }, search: { type: 'string' } },
});

async function main(): Promise<void> {
  if (!args.reuse) throw new Error('--reuse DIR is required: a scratch kept by bench:analysis or bench:explore');
  const scratch = args.reuse;
  const logs = path.join(scratch, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const { datasetId } = JSON.parse(fs.readFileSync(path.join(scratch, 'seeded.json'), 'utf8')) as { datasetId: string };
  const planFile = path.join(logs, 'cluster-stage-plan.json');
  const port = freePort();
  let postgres = await startEmbeddedPostgres({ dataDir: scratch, port });
  try {
    postgres = await withStatementStatsLoaded(postgres, () => startEmbeddedPostgres({ dataDir: scratch, port }));
    const databaseUrl = await ensureDatabase(postgres.url, args.database!);
    const env = { LOG_LEVEL: 'warn', DATA_DIR: path.join(scratch, 'data'), DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: '127.0.0.1:1', PIPELINE_PORT: '0' };
    const db = createDb(databaseUrl, 2);
    let media: number;
    try {
      await migrateLatest(db);
      media = await indexItemCount(db, (await headVersion(db, datasetId)).id);
      if (!fs.existsSync(planFile)) {
        say(`searching the kNN graph of ${media} media once (one worker process)…`);
        // Named as the plan only once its graph is stored, so an interrupted search is done again.
        const searching = `${planFile}.searching`;
        await writeKnnPlan(db, env, datasetId, searching);
        const searched = await timed(() => runStage<FanoutStageResult>('scripts/bench/fanoutStage.ts', env, path.join(logs, 'cluster-stage-search.log'), [searching, 'search', '0', '1']));
        fs.renameSync(searching, planFile);
        say(`  ${searched.seconds.toFixed(1)} s, peak RSS ${searched.value.rss_mib.peak} MiB`);
      }
    } finally {
      await db.destroy();
    }
    const { plan } = JSON.parse(fs.readFileSync(planFile, 'utf8')) as { plan: KnnPlan };
    // fanoutStage's worker 0 of N searches the chunks whose ordinal is a multiple of N.
    const searchEvery = args.search ? Math.max(1, Math.floor(plan.chunks.length / Number(args.search))) : 0;
    const name = searchEvery ? 'search-stage' : 'cluster-stage';
    say(searchEvery ? `searching every ${searchEvery}th chunk of ${plan.chunks.length} again (searchKnnChunk):` : 'final step (clusterStoredGraph):');
    const loadAverage = [os.loadavg()];
    const stageArgs = searchEvery ? [planFile, 'search', '0', String(searchEvery)] : [planFile, 'cluster'];
    await withClient(databaseUrl, async (client) => {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await resetStatementStats(client);
    });
    const stage = await timed(() => runStage<FanoutStageResult>('scripts/bench/fanoutStage.ts', env, path.join(logs, `${name}.log`), stageArgs));
    loadAverage.push(os.loadavg());
    const statements = await withClient(databaseUrl, (client) => statementStats(client, args.database!, statementText));
    const commit = execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
    const report = {
      date: new Date().toISOString(),
      machine: benchMachine(),
      media,
      commit,
      label: args.label,
      load_average: loadAverage,
      chunks: searchEvery ? stage.value.chunks : undefined,
      wall_seconds: stage.seconds,
      activity_seconds: stage.value.seconds,
      peak_rss_mib: stage.value.rss_mib.peak,
      peak_rss_anon_mib: stage.value.sampled_peaks.anon_mib,
      peak_rss_file_mib: stage.value.sampled_peaks.file_mib,
      postgres_statements: statements,
    };
    say(`  ${stage.seconds.toFixed(1)} s, peak RSS ${report.peak_rss_mib} MiB (anonymous ${report.peak_rss_anon_mib}, file-backed ${report.peak_rss_file_mib})`);
    const { machine } = report;
    const what = searchEvery ? `searchKnnChunk on ${stage.value.chunks.length} chunks of ${plan.chunks.length}, one after another,` : 'clusterStoredGraph';
    writeReport(
      'cluster-stage',
      `${name}-${media}`,
      report,
      [
        `# bench:cluster-stage${searchEvery ? ` --search ${args.search}` : ''} at ${media.toLocaleString('en-US')} media (${report.date.slice(0, 10)}, commit ${commit}${args.label ? `, ${args.label}` : ''})`,
        '',
        `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}; load average ${loadAverage.map((l) => l.map((n) => n.toFixed(1)).join('/')).join(' → ')}.`,
        '',
        `${what} in a process of its own: ${stage.seconds.toFixed(1)} s wall (${stage.value.seconds.toFixed(1)} s in the activity), peak RSS ${report.peak_rss_mib} MiB (sampled peaks: anonymous ${report.peak_rss_anon_mib} MiB, file-backed ${report.peak_rss_file_mib} MiB).`,
        '',
        `Postgres time by statement (pg_stat_statements; ${(statements.reduce((sum, row) => sum + row.total_ms, 0) / 1000).toFixed(1)} s in the 15 statements that took most):`,
        '',
        '| statement | calls | ms | share |',
        '|---|---:|---:|---:|',
        ...statements.map((row) => `| \`${row.kind.replace(/\|/g, '\\|')}\` | ${row.calls} | ${row.total_ms} | ${row.pct} % |`),
        '',
      ].join('\n'),
    );
  } finally {
    await postgres.stop();
  }
}

runBench(main);
