import type { Db } from '../db/connection';
import type { VectorStore } from '../lib/vectors/vectorStore';
import { completeSelection, runSelection, type SelectionResult } from '../services/selection';
import { createSelectionChunks } from '../services/selectionChunks';
import type { TaskRef } from '../services/taskProgress';
import type { KnnChunk, SelectionInput, SelectionStep } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

type Release = Pick<SelectionInput, 'taskId' | 'datasetId' | 'previousStatus' | 'tag' | 'count'>;

/**
 * SELECTION: thin adapters over services/selectionChunks.ts (the choice spread over workers: planSelectionChunks,
 * readSelectionChunk, chooseFromSelectionParts, clearSelectionParts) and services/selection.ts (the choice in one
 * step, for workflows that started before the fan-out; the task's end).
 */
export function createSelectionActivities(deps: { db: Db; vectors: VectorStore; chunks: { size: number; concurrency: number } }) {
  const chunks = createSelectionChunks(deps);
  return heartbeating({
    selectItems: (input: SelectionInput) => runSelection(deps, activityLiveness(), input),
    planSelectionChunks: (input: SelectionInput) => chunks.planChunks(input),
    readSelectionChunk: (step: SelectionStep & { chunk: KnnChunk }) => chunks.readChunk(activityLiveness(), step),
    chooseFromSelectionParts: (step: SelectionStep) => chunks.chooseFromParts(activityLiveness(), step),
    clearSelectionParts: (ref: TaskRef) => chunks.clear(ref),
    completeSelection: (input: Release & SelectionResult) => completeSelection(deps.db, input),
  });
}
