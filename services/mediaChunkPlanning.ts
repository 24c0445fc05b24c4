import type { Db } from '../db/connection';
import { planEnrichableChunks } from '../db/repositories/enrichment';
import { planFileChunks } from '../db/repositories/ingestion';
import { headVersion } from '../db/repositories/versions';
import type { ChunkPlan, ChunkSelection } from '../workflows/contracts';

/** Chunks one planning call returns: one window of a MEDIA_CHUNKS run. */
export const CHUNKS_PER_WINDOW = 64;

/** The next window of chunks of the selected files after `after`, and how many per run are in flight. */
export async function planMediaChunks(
  deps: { db: Db; chunks: { size: number; concurrency: number } },
  input: { selection: ChunkSelection; after: string | null; chunksDone: number },
): Promise<ChunkPlan> {
  const { db } = deps;
  const { selection, after } = input;
  const { ends, remaining } =
    'mediaOf' in selection
      ? await planEnrichableChunks(db, (await headVersion(db, selection.mediaOf)).id, after, deps.chunks.size, CHUNKS_PER_WINDOW)
      : await planFileChunks(db, selection, after, deps.chunks.size, CHUNKS_PER_WINDOW);
  const chunks = ends.map((last, i) => ({ after: i === 0 ? input.after : ends[i - 1], last, ordinal: input.chunksDone + i }));
  return { chunks, remaining, concurrency: deps.chunks.concurrency };
}
