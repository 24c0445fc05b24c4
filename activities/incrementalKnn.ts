import type { Db } from '../db/connection';
import type { VectorStore } from '../lib/vectors/vectorStore';
import { createIncrementalKnn } from '../services/incrementalKnn';
import type { TaskRef } from '../services/taskProgress';
import type { NewKnnChunkStep, NewKnnStep } from '../workflows/contracts';
import { activityLiveness } from './liveness';

/**
 * The incremental reindex (docs/decisions.md "Incremental reindex"): thin adapters over services/incrementalKnn.ts
 * (plan, one chunk of new items searched, their neighbours merged into the stored graph).
 */
export function createIncrementalKnnActivities(deps: { db: Db; vectors: VectorStore; chunks: { size: number; concurrency: number }; maxShare: number }) {
  const incremental = createIncrementalKnn(deps);
  return {
    planIncrementalKnn: (ref: TaskRef) => incremental.plan(ref),
    searchNewKnnChunk: (step: NewKnnChunkStep) => incremental.searchNewChunk(activityLiveness(), step),
    mergeNewNeighbours: (step: NewKnnStep) => incremental.mergeNewNeighbours(activityLiveness(), step),
  };
}
