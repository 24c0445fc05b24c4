/**
 * Child process of `bench:analysis`: one worker's share of the analysis as fan-out (activities/knnGraph.ts) on the
 * plan in argv[2] (a JSON file of planKnnChunks' answer and the task ref): `search W N` searches chunks w, w + N, …
 * (searchKnnChunk, one after another, as one worker's activity slots would), `cluster` runs clusterStoredGraph.
 * Configured like a worker by the environment; prints one JSON line: FanoutStageResult.
 */
import fs from 'node:fs';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createKnnGraphActivities } from '../../activities/knnGraph';
import { createDb } from '../../db/connection';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { createVectorStore } from '../../lib/vectors/createVectorStore';
import type { KnnPlan } from '../../workflows/contracts';
import { memoryOf, mib } from './nodeProcesses';
import { runBench } from './common';

export interface FanoutStageResult {
  role: 'search' | 'cluster';
  chunks: number[];
  seconds: number;
  rss_mib: { end: number; peak: number };
}

async function main(): Promise<void> {
  const [planFile, role, worker, workers] = process.argv.slice(2);
  const { plan, ref } = JSON.parse(fs.readFileSync(planFile, 'utf8')) as { plan: KnnPlan; ref: { taskId: string; datasetId: string } };
  const config = loadConfig(process.env);
  const db = createDb(config.database.url!, 4);
  const vectors = createVectorStore(config, createVectorPointRows(db), { objects: createObjectStore(config), role: 'worker' });
  const activities = createKnnGraphActivities({ db, vectors, chunks: { size: config.indexing.analysisChunkSize, concurrency: 1 } });
  const step = { ...ref, versionId: plan.versionId, collection: plan.collection, chunks: plan.chunks.length };
  const started = process.hrtime.bigint();
  try {
    const mine = role === 'cluster' ? [] : plan.chunks.filter((chunk) => chunk.ordinal % Number(workers) === Number(worker));
    if (role === 'cluster') {
      await new MockActivityEnvironment().run(activities.clusterStoredGraph, step);
    } else {
      for (const chunk of mine) await new MockActivityEnvironment().run(activities.searchKnnChunk, { ...step, analysisId: plan.analysisId, chunk });
    }
    const memory = memoryOf('self');
    const result: FanoutStageResult = {
      role: role === 'cluster' ? 'cluster' : 'search',
      chunks: mine.map((chunk) => chunk.ordinal),
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
      rss_mib: { end: mib(memory.rss), peak: mib(memory.peak) },
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await vectors.close();
    await db.destroy();
  }
}

runBench(main);
