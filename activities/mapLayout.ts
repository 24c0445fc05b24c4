import type { Db } from '../db/connection';
import type { VectorStore } from '../lib/vectors/vectorStore';
import { layOutDueMap, recordMapLayoutTask } from '../services/mapLayout';
import type { DueMapLayout, MapLayoutInput } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

/** The map laid out after an analysis commits: thin adapters over services/mapLayout.ts. */
export function createMapLayoutActivities(deps: { db: Db; vectors: VectorStore }) {
  return {
    recordMapLayoutTask: (input: MapLayoutInput) => recordMapLayoutTask(deps.db, input),
    ...heartbeating({
      layOutDueMap: (input: DueMapLayout) => layOutDueMap(deps, activityLiveness(), input),
    }),
  };
}
