import type { Db } from '../db/connection';
import type { ObjectStore } from '../lib/storage/objectStore';
import type { VectorStore } from '../lib/vectors/vectorStore';
import { clusterStoredGraph } from '../services/graphClustering';
import { reclusterStoredGraph } from '../services/graphReclustering';
import { createKnnGraphSearch } from '../services/knnGraphSearch';
import type { TaskRef } from '../services/taskProgress';
import type { KnnChunkStep, KnnStep } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

/**
 * The analysis as fan-out (docs/decisions.md "Analysis as fan-out"): thin adapters over services/knnGraphSearch.ts
 * (plan, one chunk's search), services/graphClustering.ts and services/graphReclustering.ts (after an extension).
 * `store` gives the duplicate pairs their tiers from thumbnails; stage benches leave it out.
 */
export function createKnnGraphActivities(deps: { db: Db; vectors: VectorStore; store?: ObjectStore; chunks: { size: number; concurrency: number } }) {
  const search = createKnnGraphSearch(deps);
  return heartbeating({
    planKnnChunks: (ref: TaskRef) => search.planChunks(ref),
    searchKnnChunk: (step: KnnChunkStep) => search.searchChunk(activityLiveness(), step),
    clusterStoredGraph: (step: KnnStep) => clusterStoredGraph(deps, activityLiveness(), step),
    reclusterStoredGraph: (step: KnnStep) => reclusterStoredGraph(deps, activityLiveness(), step),
  });
}
