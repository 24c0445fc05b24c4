import type { Db } from '../db/connection';
import { adoptEnrichedCopy, beginEnrichment, commitEnrichment } from '../services/enrichment';
import type { ModelContext } from '../services/enrichmentModels/plugin';
import { createEnrichmentRuns } from '../services/enrichmentRuns';
import type { TaskRef } from '../services/taskProgress';
import type { ChunkStep, EnrichmentInput } from '../workflows/contracts';
import { activityLiveness, heartbeating } from './liveness';

/** The steps of an ENRICHMENT around its model runs, on the main queue (services/enrichment.ts). */
export function createEnrichmentActivities(deps: { db: Db }) {
  const { db } = deps;
  return {
    beginEnrichment: (input: EnrichmentInput) => beginEnrichment(db, input),
    adoptEnrichedCopy: (input: EnrichmentInput) => adoptEnrichedCopy(db, input),
    commitEnrichment: (input: EnrichmentInput) => commitEnrichment(db, input),
  };
}

/**
 * The model runs of an enrichment, on the inference queue: thin adapters over services/enrichmentRuns.ts (each
 * model a plugin of services/enrichmentModels; a retried activity resumes without repeating work).
 */
export function createEnrichmentInferenceActivities(context: ModelContext) {
  const runs = createEnrichmentRuns(context);
  return heartbeating({
    enrichChunk: (step: ChunkStep) => runs.enrichChunk(activityLiveness(), step),
    enrichDatasetMedia: (ref: TaskRef) => runs.enrichDatasetMedia(activityLiveness(), ref),
  });
}
