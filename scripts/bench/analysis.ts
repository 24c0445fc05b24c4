/**
 * `npm run bench:analysis [-- N] [--workers 1,2 (none: the single activity alone)] [--pinned] [--keep] [--reuse DIR [--database NAME]]`: the analysis after indexing at N media
 * (default 100,000; 1280-d vectors sampled around 1,000 centres, as bench:explore seeds them), old and new in one run:
 * - the one-pass `analyzeDataset` (services/singlePassAnalysis.ts) in a process of its own (analyzeStage.ts);
 * - the analysis as fan-out (activities/knnGraph.ts over services/knnGraphSearch.ts and graphClustering.ts) with 1 and 2 worker processes: each searches its share of the
 *   chunks (fanoutStage.ts search), then one process clusters the stored graph (fanoutStage.ts cluster).
 * `--pinned` runs each search process alone on a core (taskset): one worker on one core against two on one core
 * each, the scale-out a second machine would give (scaling_2_over_1_pinned).
 * Activities run through MockActivityEnvironment, so neither side pays Temporal's scheduling. Wall time, peak RSS
 * per process, the stored graph's size, and whether both found the same clusters per threshold.
 * Results go to bench/results/analysis/analysis-<N>-<date>.json and .md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createDb, migrateLatest, type Db } from '../../db/connection';
import { knnEdgeBytes } from '../../db/repositories/knnEdges';
import { KNN_HIT_BYTES } from '../../lib/clustering/knnGraph';
import { CLUSTER_SIMILARITY_CUTOFFS } from '../../lib/clustering/clusterByThresholds';
import { adjustedRandIndex, identicalClusterShare } from '../../lib/vectors/neighbourAgreement';
import { ensureDefaultTenant } from '../../db/repositories/users';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { ensureDatabase, startEmbeddedPostgres } from '../../lib/embedded/postgres';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { indexPersistence } from '../../lib/vectors/createVectorStore';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import type { AnalyzeStageResult } from './analyzeStage';
import { benchMachine, directoryBytes, endLikeATask, freePort, runBench, say, timed, writeReport } from './common';
import type { FanoutStageResult } from './fanoutStage';
import { writeKnnPlan } from './knnPlan';
import { runStage, type SampledPeaks } from './nodeProcesses';
import { headKey, snapshotKeys, type IndexHead } from '../../lib/vectors/persistedIndex';
import { seedSyntheticDataset, writeSyntheticImageVectors } from './syntheticDataset';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    workers: { type: 'string', default: '1,2' },
    pinned: { type: 'boolean', default: false },
    database: { type: 'string', default: 'bench_analysis' },
  },
});
const count = Number(positionals[0] ?? 100_000);
const DIM = 1280;

type SampledStage = FanoutStageResult & { sampled_peaks: SampledPeaks };

interface FanoutRun {
  workers: number;
  chunks: number;
  knn_seconds: number;
  cluster_seconds: number;
  total_seconds: number;
  searchers: SampledStage[];
  cluster: SampledStage;
  peak_rss_mib_per_worker: number;
  /** The sampled peaks of anonymous memory and of file-backed pages (the memory-mapped index) of any one process. */
  peak_rss_anon_mib_per_worker: number;
  peak_rss_file_mib_per_worker: number;
  stored_graph_bytes: number;
  clusters_per_threshold: number[];
  /** Per threshold: the fan-out's clusters against the single activity's (adjusted Rand index, share of its clusters found identical). */
  agreement_with_baseline: Array<{ threshold: number; adjusted_rand: number; identical_clusters: number }>;
  issues_per_type: Record<string, number>;
  storage_probe: Awaited<ReturnType<typeof storageProbe>>;
}

async function seed(env: Record<string, string>, scratch: string): Promise<{ datasetId: string; seed_seconds: number; index_bytes: number }> {
  const config = loadConfig({ ...process.env, ...env });
  const db = createDb(env.DATABASE_URL, 4);
  try {
    await migrateLatest(db);
    await ensureDefaultTenant(db, config.admin);
    const { value, seconds } = await timed(async () => {
      const { datasetId, versionId } = await seedSyntheticDataset(db, count, DIM);
      // Written as a worker writes them: its store publishes the index the stages load.
      const store = createEmbeddedVectorStore({ rows: createVectorPointRows(db), persistence: indexPersistence(config, createObjectStore(config), 'worker') });
      await writeSyntheticImageVectors(db, store, { datasetId, versionId, dim: DIM });
      await store.close();
      await db.raw('VACUUM ANALYZE');
      return datasetId;
    });
    const seeded = { datasetId: value, seed_seconds: seconds, index_bytes: directoryBytes(path.join(env.DATA_DIR, 'objects', 'vector-indexes')) };
    fs.writeFileSync(path.join(scratch, 'seeded.json'), JSON.stringify(seeded));
    return seeded;
  } finally {
    await db.destroy();
  }
}

/**
 * What a kept scratch was seeded with: bench:analysis's own, or bench:explore's (`--database bench_explore`), whose
 * seed took its rows' and vectors' times and whose published indexes are measured here (the current snapshots).
 */
function keptSeed(scratch: string, dataDir: string): { datasetId: string; seed_seconds: number; index_bytes: number } {
  const kept = JSON.parse(fs.readFileSync(path.join(scratch, 'seeded.json'), 'utf8'));
  if (kept.seed_seconds !== undefined) return kept;
  const objects = path.join(dataDir, 'objects');
  const index_bytes = fs.readdirSync(path.join(objects, 'vector-indexes')).reduce((sum, collection) => {
    const head = JSON.parse(fs.readFileSync(path.join(objects, headKey(collection)), 'utf8')) as IndexHead;
    const files = Object.values(snapshotKeys(collection, head.generation, head.snapshot));
    return sum + files.reduce((bytes, key) => bytes + fs.statSync(path.join(objects, key)).size, 0);
  }, 0);
  return { datasetId: kept.datasetId, seed_seconds: kept.setup.rows_seconds + kept.setup.vectors_seconds, index_bytes };
}

/**
 * Bytes per hit of the stored blobs against a row per hit (version, two ordinals, similarity, primary key), the
 * rows made from chunk 0's blob in a scratch table: the choice docs/decisions.md records, measured.
 */
async function storageProbe(db: Db, versionId: string): Promise<{ hits: number; blob_bytes_per_hit: number; row_bytes_per_hit: number }> {
  const { hits } = await db('knn_edges').where({ version_id: versionId, chunk: 0 }).first('hits');
  const rows = Array.from({ length: hits.length / KNN_HIT_BYTES }, (_, h) => ({
    version_id: versionId,
    a: hits.readInt32LE(h * KNN_HIT_BYTES),
    b: hits.readInt32LE(h * KNN_HIT_BYTES + 4),
    similarity: hits.readDoubleLE(h * KNN_HIT_BYTES + 8),
  }));
  await db.raw('CREATE TABLE knn_edge_rows_probe (version_id uuid, a integer, b integer, similarity double precision, PRIMARY KEY (version_id, a, b))');
  try {
    for (let i = 0; i < rows.length; i += 5000) await db('knn_edge_rows_probe').insert(rows.slice(i, i + 5000));
    await db.raw('VACUUM ANALYZE knn_edge_rows_probe');
    const { bytes } = (await db.raw("SELECT pg_total_relation_size('knn_edge_rows_probe') AS bytes")).rows[0];
    return { hits: rows.length, blob_bytes_per_hit: KNN_HIT_BYTES, row_bytes_per_hit: Number(bytes) / rows.length };
  } finally {
    await db.raw('DROP TABLE knn_edge_rows_probe');
  }
}

async function clustersPerThreshold(db: Db, datasetId: string): Promise<number[]> {
  const rows: Array<{ threshold: number; n: string }> = await db('clusters as c')
    .join('dataset_versions as v', 'v.clustering_id', 'c.clustering_id')
    .join('datasets as d', 'd.head_version_id', 'v.id')
    .where('d.id', datasetId)
    .groupBy('c.threshold')
    .orderBy('c.threshold')
    .select('c.threshold', db.raw('count(*) AS n'));
  return rows.map((row) => Number(row.n));
}

/** Each item's cluster at each threshold, as ordinals (items in media id order; an item with no membership is alone). */
async function clusterLabels(db: Db, datasetId: string): Promise<Int32Array[]> {
  const ids: string[] = await db('media as m').join('datasets as d', 'd.head_version_id', 'm.version_id').where('d.id', datasetId).orderBy('m.id').pluck('m.id');
  const at = new Map(ids.map((id, i) => [id, i]));
  const levels: Int32Array[] = [];
  for (let threshold = 0; threshold < CLUSTER_SIMILARITY_CUTOFFS.length; threshold++) {
    const labels = Int32Array.from(ids, (_, i) => -1 - i);
    const ordinals = new Map<string, number>();
    const rows: Array<{ media_id: string; cluster_id: string }> = await db('cluster_members as c')
      .join('dataset_versions as v', 'v.clustering_id', 'c.clustering_id')
      .join('datasets as d', 'd.head_version_id', 'v.id')
      .where({ 'd.id': datasetId, 'c.threshold': threshold })
      .select('c.media_id', 'c.cluster_id');
    for (const row of rows) {
      if (!ordinals.has(row.cluster_id)) ordinals.set(row.cluster_id, ordinals.size);
      labels[at.get(row.media_id)!] = ordinals.get(row.cluster_id)!;
    }
    levels.push(labels);
  }
  return levels;
}

async function issuesPerType(db: Db, datasetId: string): Promise<Record<string, number>> {
  const rows: Array<{ issue_type: string; n: string }> = await db('media_issues as i')
    .join('datasets as d', 'd.head_version_id', 'i.version_id')
    .where('d.id', datasetId)
    .groupBy('i.issue_type')
    .select('i.issue_type', db.raw('count(*) AS n'));
  return Object.fromEntries(rows.map((row) => [row.issue_type, Number(row.n)]));
}

/** The fan-out with `workers` search processes at once, then the clustering process; its clusters compared with `baseline`'s. */
async function measureFanout(env: Record<string, string>, logs: string, db: Db, datasetId: string, workers: number, baseline: Int32Array[]): Promise<FanoutRun> {
  const planFile = path.join(logs, `plan-${workers}.json`);
  const plan = await writeKnnPlan(db, env, datasetId, planFile);
  // --pinned: search process w alone on CPU w, the clustering on CPU 0, as if each worker had a machine's core of its own.
  const cpuOf = (w: number) => (args.pinned ? w % os.cpus().length : undefined);
  const searched = await timed(() =>
    Promise.all(
      Array.from({ length: workers }, (_, w) =>
        runStage<FanoutStageResult>('scripts/bench/fanoutStage.ts', env, path.join(logs, `search-${workers}-${w}.log`), [planFile, 'search', String(w), String(workers)], cpuOf(w)),
      ),
    ),
  );
  const clustered = await timed(() => runStage<FanoutStageResult>('scripts/bench/fanoutStage.ts', env, path.join(logs, `cluster-${workers}.log`), [planFile, 'cluster'], cpuOf(0)));
  const stages = [...searched.value, clustered.value];
  const peaks = stages.map((stage) => stage.rss_mib.peak);
  return {
    workers,
    chunks: plan.chunks.length,
    knn_seconds: searched.seconds,
    cluster_seconds: clustered.seconds,
    total_seconds: searched.seconds + clustered.seconds,
    searchers: searched.value,
    cluster: clustered.value,
    peak_rss_mib_per_worker: Math.max(...peaks),
    peak_rss_anon_mib_per_worker: Math.max(...stages.map((stage) => stage.sampled_peaks.anon_mib)),
    peak_rss_file_mib_per_worker: Math.max(...stages.map((stage) => stage.sampled_peaks.file_mib)),
    stored_graph_bytes: await knnEdgeBytes(db, plan.versionId),
    clusters_per_threshold: await clustersPerThreshold(db, datasetId),
    agreement_with_baseline: (await clusterLabels(db, datasetId)).map((labels, threshold) => ({
      threshold,
      adjusted_rand: +adjustedRandIndex(labels, baseline[threshold]).toFixed(5),
      identical_clusters: +identicalClusterShare(labels, baseline[threshold]).toFixed(5),
    })),
    issues_per_type: await issuesPerType(db, datasetId),
    storage_probe: await storageProbe(db, plan.versionId),
  };
}

/**
 * How much faster two worker processes are than one: the neighbour search (what they share) and the whole analysis
 * (the clustering after it runs in one process). Pinned (--pinned), each process has a core of its own, as on two machines.
 */
function scalingOf(fanout: FanoutRun[]) {
  const one = fanout.find((run) => run.workers === 1);
  const two = fanout.find((run) => run.workers === 2);
  if (!one || !two) return {};
  return { [args.pinned ? 'scaling_2_over_1_pinned' : 'scaling_2_over_1']: { knn: one.knn_seconds / two.knn_seconds, total: one.total_seconds / two.total_seconds } };
}

function markdown(report: {
  date: string;
  baseline: AnalyzeStageResult & { sampled_peaks: SampledPeaks; wall_seconds: number; clusters_per_threshold: number[]; issues_per_type: Record<string, number> };
  fanout: FanoutRun[];
  load_average: number[][];
}): string {
  const machine = benchMachine();
  const { baseline } = report;
  return [
    `# bench:analysis at ${count.toLocaleString('en-US')} media (${report.date.slice(0, 10)})`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}; shared with other jobs (load average ${report.load_average.map((l) => l.map((n) => n.toFixed(1)).join('/')).join(' → ')}).`,
    `Chunks of ${loadConfig(process.env).indexing.analysisChunkSize} media; each process loads the published index itself; wall times include it.${args.pinned ? ' Pinned: each search process alone on a core of its own (taskset), the clustering on the first.' : ''}`,
    '',
    '| path | kNN graph s | clustering + scores + writes s (the map left due) | total s | peak RSS per process MiB | peak anonymous / file-backed MiB | clusters per threshold |',
    '|---|---:|---:|---:|---:|---:|---|',
    `| single activity (analyzeDataset) | ${(baseline.index_ready_seconds + baseline.knn_graph_seconds).toFixed(1)} | ${baseline.cluster_and_write_seconds.toFixed(1)} | ${baseline.wall_seconds.toFixed(1)} | ${baseline.rss_mib.peak} | ${baseline.sampled_peaks.anon_mib} / ${baseline.sampled_peaks.file_mib} | ${baseline.clusters_per_threshold.join(' / ')} |`,
    ...report.fanout.map(
      (run) =>
        `| fan-out, ${run.workers} worker process${run.workers > 1 ? 'es' : ''} (${run.chunks} chunks: ${run.searchers.map((s) => s.chunks.length).join(' + ')}) | ${run.knn_seconds.toFixed(1)} | ${run.cluster_seconds.toFixed(1)} | ${run.total_seconds.toFixed(1)} | ${run.peak_rss_mib_per_worker} (search ${run.searchers.map((s) => s.rss_mib.peak).join(', ')}; cluster ${run.cluster.rss_mib.peak}) | ${run.peak_rss_anon_mib_per_worker} / ${run.peak_rss_file_mib_per_worker} | ${run.clusters_per_threshold.join(' / ')} |`,
    ),
    '',
    // Comparisons with the fan-out, when it ran (`--workers ""` runs the single activity alone).
    ...(report.fanout.length === 0
      ? []
      : [
        `Fan-out against the single activity, thresholds 0-4: ${report.fanout.map((run) => `${run.workers} worker(s): adjusted Rand ${run.agreement_with_baseline.map((a) => a.adjusted_rand.toFixed(4)).join(', ')}; identical clusters ${run.agreement_with_baseline.map((a) => `${(100 * a.identical_clusters).toFixed(2)} %`).join(', ')}`).join('. ')}.`,
        `Issues (single activity → fan-out): ${Object.entries(baseline.issues_per_type).map(([type, n]) => `${type} ${n} → ${report.fanout.map((run) => run.issues_per_type[type] ?? 0).join(' / ')}`).join('; ')}.`,
        `Stored graph: ${(report.fanout[0].stored_graph_bytes / 2 ** 20).toFixed(1)} MiB (${(report.fanout[0].stored_graph_bytes / count).toFixed(0)} bytes per media), ${report.fanout[0].storage_probe.blob_bytes_per_hit} bytes per hit; as a row per hit (chunk 0's ${report.fanout[0].storage_probe.hits} hits in a table keyed by version and pair) ${report.fanout[0].storage_probe.row_bytes_per_hit.toFixed(1)} bytes per hit.`,
        ]),
    `Activity time inside the processes (no process start-up), fan-out: ${report.fanout.map((run) => `${run.workers} worker(s) search ${run.searchers.map((s) => s.seconds.toFixed(1)).join(' / ')} s, cluster ${run.cluster.seconds.toFixed(1)} s`).join('; ')}. Single activity: ${(baseline.total_seconds + baseline.index_ready_seconds).toFixed(1)} s.`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  say(`bench:analysis: ${count} media on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const loadAverage = [os.loadavg()];
  const scratch = args.reuse ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-analysis-'));
  const logs = path.join(scratch, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const postgres = await startEmbeddedPostgres({ dataDir: scratch, port: freePort() });
  try {
    const databaseUrl = await ensureDatabase(postgres.url, args.database!);
    const env = { LOG_LEVEL: 'warn', DATA_DIR: path.join(scratch, 'data'), DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: '127.0.0.1:1', PIPELINE_PORT: '0' };
    const seeded = args.reuse ? keptSeed(scratch, env.DATA_DIR) : await seed(env, scratch);
    say(`  seeded in ${seeded.seed_seconds.toFixed(1)} s`);
    const db = createDb(databaseUrl, 2);
    try {
      say('single-activity analysis (analyzeDataset):');
      const old = await timed(() => runStage<AnalyzeStageResult>('scripts/bench/analyzeStage.ts', env, path.join(logs, 'analyze.log'), [seeded.datasetId]));
      const baseline = { ...old.value, wall_seconds: old.seconds, clusters_per_threshold: await clustersPerThreshold(db, seeded.datasetId), issues_per_type: await issuesPerType(db, seeded.datasetId) };
      const baselineLabels = await clusterLabels(db, seeded.datasetId);
      say(`  ${baseline.wall_seconds.toFixed(1)} s (kNN ${baseline.knn_graph_seconds.toFixed(1)} s, rest ${baseline.cluster_and_write_seconds.toFixed(1)} s), peak RSS ${baseline.rss_mib.peak} MiB`);
      // Each path leaves its scratch as a task's end would (what bench:reindex and bench:explore measure next starts from there).
      say(`  the state a task's end leaves: ${(await endLikeATask(databaseUrl)).toFixed(1)} s`);
      loadAverage.push(os.loadavg());
      const fanout: FanoutRun[] = [];
      for (const workers of args.workers!.split(',').filter(Boolean).map(Number)) {
        say(`fan-out with ${workers} worker process(es):`);
        const run = await measureFanout(env, logs, db, seeded.datasetId, workers, baselineLabels);
        say(`  ${run.total_seconds.toFixed(1)} s (kNN ${run.knn_seconds.toFixed(1)} s, clustering ${run.cluster_seconds.toFixed(1)} s), peak RSS per worker ${run.peak_rss_mib_per_worker} MiB`);
        fanout.push(run);
        say(`  the state a task's end leaves: ${(await endLikeATask(databaseUrl)).toFixed(1)} s`);
        loadAverage.push(os.loadavg());
      }
      const report = {
        date: new Date().toISOString(),
        machine: benchMachine(),
        media: count,
        seed_seconds: seeded.seed_seconds,
        index_bytes: seeded.index_bytes,
        load_average: loadAverage,
        pinned: args.pinned,
        baseline,
        fanout,
        ...scalingOf(fanout),
      };
      writeReport('analysis', `analysis-${count}`, report, markdown(report));
    } finally {
      await db.destroy();
    }
  } finally {
    await postgres.stop();
    if (args.keep || args.reuse) say(`scratch kept: ${scratch} (--reuse ${scratch})`);
    else fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
