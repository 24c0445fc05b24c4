import pLimit from 'p-limit';
import type { ChunkSelection, ChunkStep } from '../workflows/contracts';
import { ingestChunk, type IngestDeps } from '../services/fileIngestion';
import { planMediaChunks } from '../services/mediaChunkPlanning';
import { activityLiveness, heartbeating } from './liveness';

/**
 * MEDIA_CHUNKS steps: thin adapters over services/mediaChunkPlanning.ts (the next window of chunks of the selected
 * files or media) and services/fileIngestion.ts (one chunk's files decoded into media, resumable).
 */
export function createIngestActivities(options: Omit<IngestDeps, 'decodes'> & { decodeConcurrency: number }) {
  // One set of decode slots per process: the chunks it runs at once share them.
  const deps: IngestDeps = { ...options, decodes: pLimit(options.decodeConcurrency) };
  // A video's frames come from ffmpeg runs of many seconds, with nothing to heartbeat between: the timer does meanwhile.
  return heartbeating({
    planMediaChunks: (input: { selection: ChunkSelection; after: string | null; chunksDone: number }) => planMediaChunks(deps, input),
    ingestChunk: (step: ChunkStep) => ingestChunk(deps, activityLiveness(), step),
  });
}
