/**
 * Child process of `bench:explore`: the worker's clustering stage (analyzeDataset: the kNN graph from
 * the vector index, clustering at the five thresholds, neighbour scores, one transaction of writes;
 * the map left due, as the fan-out leaves it to a MAP_LAYOUT task after READY) on dataset argv[2],
 * configured like a worker by the environment (DATABASE_URL, DATA_DIR, …). Run in a process of its
 * own so its peak RSS is the stage's own. Prints one JSON line: AnalyzeStageResult.
 */
import { randomUUID } from 'node:crypto';
import { createDb } from '../../db/connection';
import { headVersion } from '../../db/repositories/versions';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { createVectorStore } from '../../lib/vectors/createVectorStore';
import { imageCollection, type VectorStore } from '../../lib/vectors/vectorStore';
import { analyzeDataset } from '../../services/singlePassAnalysis';
import { unattended } from '../../services/taskLiveness';
import { memoryOf, mib } from './nodeProcesses';
import { runBench } from './common';

export interface AnalyzeStageResult {
  items: number;
  edges: number;
  /** Loading (or building) this process's vector index before the stage, as a worker does on its first search. */
  index_ready_seconds: number;
  /** From the stage's start to its last kNN search. */
  knn_graph_seconds: number;
  /** After the last kNN search: clustering, scores and the transaction that writes them. */
  cluster_and_write_seconds: number;
  total_seconds: number;
  rss_mib: { index_ready: number; knn_graph_done: number; end: number; peak: number };
  heap_used_mib_at_knn_graph_done: number;
}

const seconds = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e9;

async function main(): Promise<void> {
  const datasetId = process.argv[2];
  const config = loadConfig(process.env);
  const db = createDb(config.database.url!, 4);
  const vectors = createVectorStore(config, createVectorPointRows(db), { objects: createObjectStore(config), role: 'worker' });
  try {
    const version = await headVersion(db, datasetId);
    const collection = imageCollection(version.vector_space_id);
    let started = process.hrtime.bigint();
    const [id] = await db('media').where({ version_id: version.id }).limit(1).pluck('id');
    const [vector] = (await vectors.get(collection, [id])).values();
    await vectors.searchMany(collection, [vector], 1);
    const indexReady = { seconds: seconds(started), rss: memoryOf('self').rss };

    let lastSearch = { at: 0n, rss: 0, heapUsed: 0 };
    let searched = 0;
    let lastProgress = 0n;
    const timedVectors: VectorStore = {
      ...vectors,
      async searchMany(...args) {
        const hits = await vectors.searchMany(...args);
        lastSearch = { at: process.hrtime.bigint(), rss: memoryOf('self').rss, heapUsed: process.memoryUsage().heapUsed };
        searched += args[1].length;
        // Progress on stderr (the bench's log), so a run cut short still tells its rate.
        if (lastSearch.at - lastProgress > 30_000_000_000n) {
          lastProgress = lastSearch.at;
          process.stderr.write(`kNN graph: ${searched} items searched at ${seconds(started).toFixed(0)} s, RSS ${mib(lastSearch.rss)} MiB\n`);
        }
        return hits;
      },
    };
    started = process.hrtime.bigint();
    const { items, edges } = await analyzeDataset({ db, vectors: timedVectors }, unattended, { datasetId, taskId: randomUUID() }, { layMap: false });
    const total = seconds(started);
    const knnGraph = Number(lastSearch.at - started) / 1e9;
    const memory = memoryOf('self');
    const result: AnalyzeStageResult = {
      items,
      edges,
      index_ready_seconds: indexReady.seconds,
      knn_graph_seconds: knnGraph,
      cluster_and_write_seconds: total - knnGraph,
      total_seconds: total,
      rss_mib: { index_ready: mib(indexReady.rss), knn_graph_done: mib(lastSearch.rss), end: mib(memory.rss), peak: mib(memory.peak) },
      heap_used_mib_at_knn_graph_done: Math.round(lastSearch.heapUsed / 2 ** 20),
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await vectors.close();
    await db.destroy();
  }
}

runBench(main);
