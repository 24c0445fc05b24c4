import { ACTIVE_TASK_STATUSES } from '../../lib/datasetTransitions';
import type { Db } from '../connection';

/** One chunk of a SELECTION task's pool: its items' vectors, `items` of them, one after another as float32. */
export interface SelectionPart {
  items: number;
  vectors: Buffer;
}

/**
 * Stores chunk `chunk` of the task's pool while the task is active, and says whether it did; a repeated chunk (a
 * retried activity) replaces its row. The task's row is read FOR SHARE: an end that clears the chunks (its own, or a
 * lost workflow's repair) waits for this write, or this write sees the task ended, so no chunk outlives its task.
 */
export async function writeSelectionPart(db: Db, taskId: string, chunk: number, part: SelectionPart): Promise<boolean> {
  return db.transaction(async (trx) => {
    const active = await trx('tasks').where({ task_id: taskId }).whereIn('status', ACTIVE_TASK_STATUSES).forShare().first('task_id');
    if (!active) return false;
    await trx('selection_parts').insert({ task_id: taskId, chunk, items: part.items, vectors: part.vectors }).onConflict(['task_id', 'chunk']).merge(['items', 'vectors']);
    return true;
  });
}

/** How many chunks of the task's pool are stored. */
export async function storedSelectionParts(db: Db, taskId: string): Promise<number> {
  return Number((await db('selection_parts').where({ task_id: taskId }).count({ n: '*' }))[0].n);
}

/** Chunks 0 … chunks-1 of the task's pool, one at a time in order; a missing chunk is an error. */
export async function forEachSelectionPart(db: Db, taskId: string, chunks: number, onChunk: (part: SelectionPart) => void): Promise<void> {
  for (let chunk = 0; chunk < chunks; chunk++) {
    const row: SelectionPart | undefined = await db('selection_parts').where({ task_id: taskId, chunk }).first('items', 'vectors');
    if (!row) throw new Error(`chunk ${chunk} of the selection's pool is not stored`);
    onChunk(row);
  }
}

/** Forgets the task's stored chunks (its end, or a new plan). */
export async function clearSelectionParts(db: Db, taskId: string): Promise<void> {
  await db('selection_parts').where({ task_id: taskId }).delete();
}
