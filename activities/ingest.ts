import type { ChunkSelection, ChunkStep } from '../workflows/contracts';
import { ingestChunk, type IngestDeps } from '../services/fileIngestion';
import { planMediaChunks } from '../services/mediaChunkPlanning';
import { activityLiveness } from './liveness';

/**
 * MEDIA_CHUNKS steps: thin adapters over services/mediaChunkPlanning.ts (the next window of chunks of the selected
 * files or media) and services/fileIngestion.ts (one chunk's files decoded into media, resumable).
 */
export function createIngestActivities(deps: IngestDeps) {
  return {
    planMediaChunks: (input: { selection: ChunkSelection; after: string | null; chunksDone: number }) => planMediaChunks(deps, input),
    ingestChunk: (step: ChunkStep) => ingestChunk(deps, activityLiveness(), step),
  };
}
