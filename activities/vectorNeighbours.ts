import { Context } from '@temporalio/activity';
import type { VectorHit, VectorStore } from '../lib/vectors/vectorStore';

const QUERY_BATCH = 256;

/** The `k` nearest neighbours (self included) of stored items, in batches, heartbeating and honouring cancellation. */
export async function vectorNeighbours(
  vectors: VectorStore,
  collection: string,
  ids: string[],
  k: number,
  onBatch: (done: number) => Promise<void> = async () => undefined,
): Promise<VectorHit[][]> {
  const context = Context.current();
  const results: VectorHit[][] = [];
  for (let start = 0; start < ids.length; start += QUERY_BATCH) {
    context.heartbeat({ start });
    if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
    const batch = ids.slice(start, start + QUERY_BATCH);
    const stored = await vectors.get(collection, batch);
    const queries = batch.map((id) => stored.get(id));
    if (queries.some((vector) => !vector)) throw new Error(`an item has no vector in ${collection}`);
    results.push(...(await vectors.searchMany(collection, queries as Float32Array[], k)));
    await onBatch(start + batch.length);
  }
  return results;
}
