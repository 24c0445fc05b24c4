/**
 * `npm run bench:reindex [-- N] [--added 1000] [--from-analysis DIR [--database NAME] [--skip-full]]`: a reindex after adding `added` media to a dataset of N (default
 * 100,000; 1280-d vectors sampled around 1,000 centres, as bench:analysis seeds them), incremental against full in
 * one run and one process, activities through MockActivityEnvironment: the dataset is analysed in full, `added`
 * media are added (rows and vectors), then the incremental reindex (services/incrementalKnn.ts, then
 * reclusterStoredGraph, which writes only what changed) and the full one (services/knnGraphSearch.ts, graphClustering.ts) analyse the same final media. Wall times per step,
 * and how far the two agree: items whose neighbour lists differ, and the clusters per threshold.
 * `--from-analysis DIR` starts from a copy of a scratch bench:analysis kept (`--keep`: seeded and analysed, its graph
 * stored), instead of seeding and analysing again (at 1,000,000 that is 40 minutes); `--skip-full` leaves out the
 * full reindex and the comparison with it (the report is then reindex-<N>-incremental-<date>).
 * Results go to bench/results/reindex/reindex-<N>-<date>.json and .md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createIncrementalKnnActivities } from '../../activities/incrementalKnn';
import { createKnnGraphActivities } from '../../activities/knnGraph';
import { createDb, migrateLatest, type Db } from '../../db/connection';
import { findKnnGraphManifest, forEachKnnChunk, setAnalysedGraph } from '../../db/repositories/knnEdges';
import { CLUSTERING_OF } from '../../db/repositories/clusteringOf';
import { ensureDefaultTenant } from '../../db/repositories/users';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { placeMap, placesIn } from '../../lib/clustering/incrementalGraph';
import { addKnnHits, emptyKnnGraph, neighboursIn } from '../../lib/clustering/knnGraph';
import { loadConfig } from '../../lib/config';
import { ensureDatabase } from '../../lib/embedded/postgres';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { indexPersistence } from '../../lib/vectors/createVectorStore';
import { createEmbeddedVectorStore, type EmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import { imageCollection } from '../../lib/vectors/vectorStore';
import type { KnnPlan } from '../../workflows/contracts';
import { GRAPH_K } from '../../lib/clustering/knnGraph';
import { benchMachine, say, timed, writeReport, runBench, withScratchPostgres } from './common';
import { seedSyntheticDataset, writeSyntheticImageVectors } from './syntheticDataset';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { added: { type: 'string', default: '1000' }, 'from-analysis': { type: 'string' }, 'skip-full': { type: 'boolean', default: false }, database: { type: 'string', default: 'bench_analysis' } },
});
const count = Number(positionals[0] ?? 100_000);
const added = Number(args.added);
const DIM = 1280;

type Activities = ReturnType<typeof createKnnGraphActivities> & ReturnType<typeof createIncrementalKnnActivities>;
const run = <I, O>(fn: (input: I) => Promise<O>, input: I) => new MockActivityEnvironment().run(fn, input) as Promise<O>;

/** The full analysis as the workflow runs it, chunk after chunk (one worker). */
async function fullAnalysis(activities: Activities, ref: { taskId: string; datasetId: string }) {
  const searched = await timed(async () => {
    const plan = (await run(activities.planKnnChunks, ref)) as KnnPlan;
    const step = { ...ref, versionId: plan.versionId, collection: plan.collection, chunks: plan.chunks.length };
    for (const chunk of plan.chunks) await run(activities.searchKnnChunk, { ...step, analysisId: plan.analysisId, chunk });
    return step;
  });
  const clustered = await timed(() => run(activities.clusterStoredGraph, searched.value));
  return { search_seconds: searched.seconds, cluster_seconds: clustered.seconds, total_seconds: searched.seconds + clustered.seconds };
}

/** The incremental reindex as the workflow runs it (one worker). */
async function incrementalReindex(activities: Activities, ref: { taskId: string; datasetId: string }) {
  const searched = await timed(async () => {
    const plan = await run(activities.planIncrementalKnn, ref);
    if (plan.kind === 'full') throw new Error(`the reindex would rebuild in full: ${plan.reason}`);
    const step = { ...ref, versionId: plan.versionId, collection: plan.collection, analysisId: plan.analysisId, baseChunks: plan.baseChunks, chunks: plan.chunks.length };
    for (const chunk of plan.chunks) await run(activities.searchNewKnnChunk, { ...step, chunk });
    return step;
  });
  const merged = await timed(() => run(activities.mergeNewNeighbours, searched.value));
  const clustered = await timed(() => run(activities.reclusterStoredGraph, merged.value));
  return {
    search_seconds: searched.seconds,
    merge_seconds: merged.seconds,
    changed_lists: merged.value.changed,
    cluster_seconds: clustered.seconds,
    rewritten: clustered.value.rewritten,
    total_seconds: searched.seconds + merged.seconds + clustered.seconds,
  };
}

/** Every item's neighbour ids (sorted), by media id: the stored graph as clusterStoredGraph reads it. */
async function storedLists(db: Db, versionId: string): Promise<Map<string, string>> {
  const ids: string[] = await db('media').where({ version_id: versionId }).orderBy('id').pluck('id');
  const manifest = (await findKnnGraphManifest(db, versionId))!;
  const graph = emptyKnnGraph(ids.length, GRAPH_K + 1);
  const placeOf = placesIn(placeMap(ids), manifest.ids);
  await forEachKnnChunk(db, versionId, manifest.chunks, (hits, chunk) => addKnnHits(graph, hits, chunk, placeOf));
  return new Map(ids.map((id, i) => [id, neighboursIn(graph, i).map((n) => ids[n.index]).sort().join(',')]));
}

/** Each threshold's partition into clusters, as sorted member lists joined (comparable across runs). */
async function partitions(db: Db, versionId: string): Promise<string[][]> {
  const rows: Array<{ threshold: number; members: string }> = (
    await db.raw(
      `SELECT threshold, string_agg(media_id::text, ',' ORDER BY media_id) AS members FROM cluster_members WHERE clustering_id = ${CLUSTERING_OF} GROUP BY threshold, cluster_id`,
      [versionId],
    )
  ).rows;
  return [0, 1, 2, 3, 4].map((threshold) => rows.filter((row) => row.threshold === threshold).map((row) => row.members).sort());
}

/** Every scored item's uniqueness and duplicate and outlier issues (as stored), by media id. */
async function storedScores(db: Db, versionId: string): Promise<Map<string, string>> {
  const scores = new Map<string, string>();
  for (const row of await db('media').where({ version_id: versionId }).whereNotNull('uniqueness_score').select('id', 'uniqueness_score')) scores.set(row.id, `${row.uniqueness_score}`);
  const issues = await db('media_issues').where({ version_id: versionId }).whereIn('issue_type', ['duplicates', 'outliers']).orderBy(['media_id', 'issue_type']).select('media_id', 'issue_type', 'confidence', db.raw('details::text AS details'));
  for (const row of issues) scores.set(row.media_id, `${scores.get(row.media_id)};${row.issue_type} ${row.confidence} ${row.details}`);
  return scores;
}

/** `added` more media in the version, with vectors around the same centres (new ids, the others' vectors unchanged). */
async function addMedia(db: Db, store: EmbeddedVectorStore, datasetId: string, versionId: string): Promise<void> {
  await db.raw(
    `INSERT INTO media (version_id, id, kind, batch_id, file_name, blob_sha256, thumb_sha256, width, height, format, embedded, caption_embedded)
     SELECT ?, gen_random_uuid(), 'IMAGE', ?, 'added_' || g || '.jpg', md5(g::text) || md5(g::text), md5(g::text) || md5(g::text), 640, 480, 'jpeg', true, false
     FROM generate_series(1, ?) g`,
    [versionId, randomUUID(), added],
  );
  const ids: string[] = await db('media').where({ version_id: versionId }).where('file_name', 'like', 'added_%').pluck('id');
  const existing = await store.get(imageCollection(datasetId), (await db('media').where({ version_id: versionId }).whereNot('file_name', 'like', 'added_%').limit(added).pluck('id')) as string[]);
  // Each new item near an existing one (a nudged copy): new neighbours enter existing lists, as new photos of known scenes do.
  const sources = [...existing.values()];
  await store.upsert(
    imageCollection(datasetId),
    ids.map((id, i) => {
      const vector = sources[i % sources.length].map((value, d) => value + Math.sin(i * 7 + d) * 0.01);
      const norm = Math.hypot(...vector);
      return { id, vector: vector.map((value) => value / norm) };
    }),
  );
  // Publishing the grown index is the addition's work (its worker's), not the reindex's.
  await store.publishPending();
}

async function main(): Promise<void> {
  say(`bench:reindex: ${count} media + ${added} on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const loadAverage = [os.loadavg()];
  const from = args['from-analysis'];
  await withScratchPostgres('reindex', async (postgres, scratch) => {
    // A kept bench:analysis scratch holds its database under bench:analysis's name (`--database bench_explore` for bench:explore's).
    const databaseUrl = await ensureDatabase(postgres.url, from ? args.database! : 'bench_reindex');
    const env = { ...process.env, LOG_LEVEL: 'warn', DATA_DIR: path.join(scratch, 'data'), DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: '127.0.0.1:1', PIPELINE_PORT: '0' };
    const config = loadConfig(env);
    const db = createDb(databaseUrl, 4);
    await migrateLatest(db);
    await ensureDefaultTenant(db, config.admin);
    const store = createEmbeddedVectorStore({ rows: createVectorPointRows(db), persistence: indexPersistence(config, createObjectStore(config), 'worker') });
    try {
      const seeded = await timed(async () => {
        if (args['from-analysis']) {
          const { datasetId } = JSON.parse(fs.readFileSync(path.join(scratch, 'seeded.json'), 'utf8')) as { datasetId: string };
          const { id: versionId } = await db('dataset_versions').where({ dataset_id: datasetId }).orderBy('created_at', 'desc').first('id');
          // A scratch kept before graphs recorded what their analysis came from was analysed from its whole graph.
          const manifest = await findKnnGraphManifest(db, versionId);
          if (manifest && !manifest.analysed) await setAnalysedGraph(db, versionId, { chunks: manifest.chunks, items: manifest.ids.length });
          return { datasetId, versionId: versionId as string };
        }
        const { datasetId, versionId } = await seedSyntheticDataset(db, count, DIM);
        await writeSyntheticImageVectors(db, store, { datasetId, versionId, dim: DIM });
        return { datasetId, versionId };
      });
      const { datasetId, versionId } = seeded.value;
      say(args['from-analysis'] ? `  from the analysed dataset of ${args['from-analysis']}` : `  seeded in ${seeded.seconds.toFixed(1)} s`);
      const chunks = { size: config.indexing.analysisChunkSize, concurrency: 1 };
      const activities = { ...createKnnGraphActivities({ db, vectors: store, chunks }), ...createIncrementalKnnActivities({ db, vectors: store, chunks, maxShare: 0.5 }) };
      const ref = { taskId: randomUUID(), datasetId };
      const initial = args['from-analysis'] ? undefined : await fullAnalysis(activities, ref);
      if (initial) say(`  first analysis ${initial.total_seconds.toFixed(1)} s`);
      loadAverage.push(os.loadavg());
      const addition = await timed(() => addMedia(db, store, datasetId, versionId));
      say(`  ${added} media added (rows, vectors and the index published again) in ${addition.seconds.toFixed(1)} s`);
      const incremental = await incrementalReindex(activities, ref);
      say(`  incremental reindex ${incremental.total_seconds.toFixed(1)} s (search ${incremental.search_seconds.toFixed(1)}, merge ${incremental.merge_seconds.toFixed(1)}, cluster ${incremental.cluster_seconds.toFixed(1)})`);
      if (args['skip-full']) {
        writeIncrementalOnly(incremental, addition.seconds, loadAverage);
        return;
      }
      const incrementalLists = await storedLists(db, versionId);
      const incrementalClusters = await partitions(db, versionId);
      const incrementalScores = await storedScores(db, versionId);
      loadAverage.push(os.loadavg());
      const full = await fullAnalysis(activities, ref);
      say(`  full reindex ${full.total_seconds.toFixed(1)} s (search ${full.search_seconds.toFixed(1)}, cluster ${full.cluster_seconds.toFixed(1)})`);
      const fullLists = await storedLists(db, versionId);
      const fullClusters = await partitions(db, versionId);
      const fullScores = await storedScores(db, versionId);
      loadAverage.push(os.loadavg());
      const differingLists = [...fullLists].filter(([id, list]) => incrementalLists.get(id) !== list).length;
      const differingScores = [...fullScores].filter(([id, score]) => incrementalScores.get(id) !== score).length + Math.abs(fullScores.size - incrementalScores.size);
      const sameClusters = fullClusters.map((level, threshold) => JSON.stringify(level) === JSON.stringify(incrementalClusters[threshold]));
      const report = {
        date: new Date().toISOString(),
        machine: benchMachine(),
        media: count,
        added,
        seed_seconds: args['from-analysis'] ? undefined : seeded.seconds,
        from_analysis: args['from-analysis'],
        addition_seconds: addition.seconds,
        load_average: loadAverage,
        first_analysis: initial,
        incremental,
        full,
        full_over_incremental: full.total_seconds / incremental.total_seconds,
        search_full_over_incremental: full.search_seconds / (incremental.search_seconds + incremental.merge_seconds),
        items_whose_lists_differ: differingLists,
        items_whose_scores_differ: differingScores,
        clusters_per_threshold: fullClusters.map((level) => level.length),
        same_clusters_per_threshold: sameClusters,
      };
      const machine = benchMachine();
      writeReport(
        'reindex',
        `reindex-${count}`,
        report,
        [
          `# bench:reindex: ${added.toLocaleString('en-US')} media added to ${count.toLocaleString('en-US')} (${report.date.slice(0, 10)})`,
          '',
          `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}; shared with other jobs (load average ${loadAverage.map((l) => l.map((n) => n.toFixed(1)).join('/')).join(' → ')}). One process, activities through MockActivityEnvironment.`,
          '',
          '| reindex | neighbour search s | merge s | clustering + scores + map + writes s (incremental: only what changed) | total s |',
          '|---|---:|---:|---:|---:|',
          `| incremental | ${incremental.search_seconds.toFixed(1)} | ${incremental.merge_seconds.toFixed(1)} | ${incremental.cluster_seconds.toFixed(1)} | ${incremental.total_seconds.toFixed(1)} |`,
          `| full | ${full.search_seconds.toFixed(1)} | - | ${full.cluster_seconds.toFixed(1)} | ${full.total_seconds.toFixed(1)} |`,
          '',
          `Full / incremental: ${report.full_over_incremental.toFixed(2)}× in total, ${report.search_full_over_incremental.toFixed(1)}× for the graph (search + merge), ${(full.cluster_seconds / incremental.cluster_seconds).toFixed(1)}× for the re-clustering. Lists changed by the merge: ${incremental.changed_lists}. Rows the incremental re-clustering wrote: ${incremental.rewritten.clusters} new clusters (${incremental.rewritten.changedClusters} kept with other members, ${incremental.rewritten.removedClusters} removed), ${incremental.rewritten.memberships} memberships, ${incremental.rewritten.scores} scores, ${incremental.rewritten.mapPoints} map points. Items whose neighbour lists differ between the two: ${differingLists} of ${count + added}; whose scores or issues differ: ${differingScores}. Same clusters per threshold: ${sameClusters.join(' / ')} (${report.clusters_per_threshold.join(' / ')} clusters).`,
          '',
        ].join('\n'),
      );
    } finally {
      await store.close();
      await db.destroy();
    }
  }, from);
}

/** The report of a run without the full reindex (`--skip-full`). */
function writeIncrementalOnly(incremental: Awaited<ReturnType<typeof incrementalReindex>>, additionSeconds: number, loadAverage: number[][]): void {
  const report = { date: new Date().toISOString(), machine: benchMachine(), media: count, added, from_analysis: args['from-analysis'], load_average: loadAverage, addition_seconds: additionSeconds, incremental };
  const machine = benchMachine();
  const { rewritten } = incremental;
  writeReport('reindex', `reindex-${count}-incremental`, report, [
    `# bench:reindex: ${added.toLocaleString('en-US')} media added to ${count.toLocaleString('en-US')} (${report.date.slice(0, 10)}), incremental only`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}; load average ${loadAverage.map((l) => l.map((n) => n.toFixed(1)).join('/')).join(' → ')}. One process, activities through MockActivityEnvironment${args['from-analysis'] ? `; the dataset seeded and analysed by bench:analysis (${args['from-analysis']})` : ''}.`,
    '',
    '| reindex | neighbour search s | merge s | clustering + scores + map + writes s (only what changed) | total s |',
    '|---|---:|---:|---:|---:|',
    `| incremental | ${incremental.search_seconds.toFixed(1)} | ${incremental.merge_seconds.toFixed(1)} | ${incremental.cluster_seconds.toFixed(1)} | ${incremental.total_seconds.toFixed(1)} |`,
    '',
    `Before it, the addition (rows, vectors, and the index published again, as the adding worker does): ${additionSeconds.toFixed(1)} s.`,
    '',
    `Lists changed by the merge: ${incremental.changed_lists}. Rows the re-clustering wrote: ${rewritten.clusters} new clusters (${rewritten.changedClusters} kept with other members, ${rewritten.removedClusters} removed), ${rewritten.memberships} memberships, ${rewritten.scores} scores, ${rewritten.mapPoints} map points.`,
    '',
  ].join('\n'));
}

runBench(main);
