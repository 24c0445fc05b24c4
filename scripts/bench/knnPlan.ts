import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createKnnGraphActivities } from '../../activities/knnGraph';
import type { Db } from '../../db/connection';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { indexPersistence } from '../../lib/vectors/createVectorStore';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import type { KnnPlan } from '../../workflows/contracts';

/** Plans a dataset's analysis as fan-out (planKnnChunks) and writes the plan and its task ref to `planFile`, as fanoutStage.ts reads them. */
export async function writeKnnPlan(db: Db, env: Record<string, string>, datasetId: string, planFile: string): Promise<KnnPlan> {
  const config = loadConfig({ ...process.env, ...env });
  const store = createEmbeddedVectorStore({ rows: createVectorPointRows(db), persistence: indexPersistence(config, createObjectStore(config), 'api') });
  const ref = { taskId: randomUUID(), datasetId };
  const { planKnnChunks } = createKnnGraphActivities({ db, vectors: store, chunks: { size: config.indexing.analysisChunkSize, concurrency: 1 } });
  const plan = (await new MockActivityEnvironment().run(planKnnChunks, ref)) as KnnPlan;
  await store.close();
  fs.writeFileSync(planFile, JSON.stringify({ plan, ref }));
  return plan;
}
