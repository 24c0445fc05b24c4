import type { Db } from '../db/connection';
import { clearSelectionParts, forEachSelectionPart, storedSelectionParts, writeSelectionPart } from '../db/repositories/selectionParts';
import { updateTaskProgress } from '../db/repositories/tasks';
import { bytesToVectors, vectorsToBytes } from '../lib/vectors/vectorBytes';
import { imageCollection, type VectorStore } from '../lib/vectors/vectorStore';
import type { KnnChunk, SelectionInput, SelectionPlan, SelectionStep } from '../workflows/contracts';
import { chunksOf } from './knnGraphSearch';
import { chooseAndTag, poolOfSelection, poolVectors, sketched, type PoolOfSelection, type SelectionResult } from './selection';
import { heartbeatOrStop, type Liveness } from './taskLiveness';
import { createProgressReporter, type TaskRef } from './taskProgress';

/**
 * A SELECTION spread over workers (docs/decisions.md "Selection spread over workers"): `planChunks` splits the pool
 * into chunks, `readChunk` (any worker, any number at once) stores one chunk's vectors as the choice compares them in
 * selection_parts, and `chooseFromParts` reads them all back, chooses and writes the tag (services/selection.ts), as
 * the one-activity runSelection does from the same vectors.
 */
export function createSelectionChunks(deps: { db: Db; vectors: VectorStore; chunks: { size: number; concurrency: number } }) {
  const { db } = deps;
  // Every chunk takes its slice of the pool: read once per task and worker.
  let cached: { taskId: string; pool: Promise<PoolOfSelection> } | undefined;
  const poolOf = (input: SelectionInput) => {
    if (cached?.taskId !== input.taskId) cached = { taskId: input.taskId, pool: poolOfSelection(db, input) };
    const loading = cached.pool;
    loading.catch(() => (cached = undefined));
    return loading;
  };

  return {
    /** The task RUNNING, its pool in chunks (places in the pool by id), anything an earlier plan stored forgotten. */
    async planChunks(input: SelectionInput): Promise<SelectionPlan> {
      await updateTaskProgress(db, input.taskId, { status: 'RUNNING', statusMessage: 'Reading the pool', progressPercentage: 0 });
      const { pool } = await poolOf(input);
      await clearSelectionParts(db, input.taskId);
      return { chunks: chunksOf(pool.length, deps.chunks.size), concurrency: deps.chunks.concurrency };
    },

    /** Reads a chunk's vectors (sketched when the pool is large) and stores them unless the task ended; a repeat overwrites. */
    async readChunk(live: Liveness, step: SelectionStep & { chunk: KnnChunk }): Promise<void> {
      const { version, pool } = await poolOf(step);
      const ids = pool.slice(step.chunk.start, step.chunk.end).map((row) => row.id);
      const read = { collection: imageCollection(version.vector_space_id), ids, sketch: sketched(pool.length), seed: step.seed };
      const vectors = await poolVectors(deps.vectors, live, read);
      if (!(await writeSelectionPart(db, step.taskId, step.chunk.ordinal, { items: ids.length, vectors: vectorsToBytes(vectors) }))) return;
      const report = createProgressReporter(db, step, 'select', 'Chunks of the pool read', { from: 0, to: 0.5 });
      await report(await storedSelectionParts(db, step.taskId), step.chunks, true);
    },

    /** The stored vectors of every chunk, in pool order; the mix chosen from them and the tag written. */
    async chooseFromParts(live: Liveness, step: SelectionStep): Promise<SelectionResult> {
      const chosenFrom = await poolOf(step);
      const vectors: Float32Array[] = [];
      await forEachSelectionPart(db, step.taskId, step.chunks, (part) => {
        heartbeatOrStop(live);
        for (const vector of bytesToVectors(part.vectors, part.items)) vectors.push(vector);
      });
      if (vectors.length !== chosenFrom.pool.length) throw new Error(`the stored chunks hold ${vectors.length} vectors, the pool ${chosenFrom.pool.length}`);
      const report = createProgressReporter(db, step, 'select', 'Picks chosen', { from: 0.5, to: 1 });
      await report(0, step.count, true);
      const result = await chooseAndTag(db, live, step, chosenFrom, vectors);
      await report(result.chosen, step.count, true);
      return result;
    },

    /** Forgets the task's stored chunks (its end, whichever it is). */
    clear: (ref: TaskRef) => clearSelectionParts(db, ref.taskId),
  };
}
