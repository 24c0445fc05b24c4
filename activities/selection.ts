import type { Db } from '../db/connection';
import type { VectorStore } from '../lib/vectors/vectorStore';
import { completeSelection, runSelection, type SelectionResult } from '../services/selection';
import type { SelectionInput } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

type Release = Pick<SelectionInput, 'taskId' | 'datasetId' | 'previousStatus' | 'tag' | 'count'>;

/** SELECTION: thin adapters over services/selection.ts (the choice written as a tag, the task's end). */
export function createSelectionActivities(deps: { db: Db; vectors: VectorStore }) {
  return heartbeating({
    selectItems: (input: SelectionInput) => runSelection(deps, activityLiveness(), input),
    completeSelection: (input: Release & SelectionResult) => completeSelection(deps.db, input),
  });
}
