import { embedCaptions, embedChunk, embedDatasetMedia, type EmbeddingDeps } from '../services/mediaEmbedding';
import type { TaskRef } from '../services/taskProgress';
import type { ChunkStep } from '../workflows/contracts';
import { activityLiveness } from './liveness';

/** The embedding stage of indexing, on the inference queue: thin adapters over services/mediaEmbedding.ts (resumable). */
export function createEmbeddingActivities(deps: EmbeddingDeps) {
  return {
    embedCaptions: (ref: { datasetId: string }) => embedCaptions(deps, activityLiveness(), ref),
    embedChunk: (step: ChunkStep) => embedChunk(deps, activityLiveness(), step),
    embedDatasetMedia: (ref: TaskRef) => embedDatasetMedia(deps, activityLiveness(), ref),
  };
}
