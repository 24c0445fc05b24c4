import { MODEL_IDS, type EnrichmentModel, type ModelAvailability, type ModelId } from '../../lib/enrichment/catalog';
import { clip } from './clip';
import { cocoDetector } from './cocoDetector';
import { conceptEncoder } from './conceptEncoder';
import { imagenetTagger } from './imagenetTagger';
import { objectCaptioner } from './objectCaptioner';
import type { EnrichmentPlugin } from './plugin';
import { tagCaptioner } from './tagCaptioner';
import { visionLanguageCaptioner } from './visionLanguageCaptioner';

/**
 * Every enrichment model this service knows, by id, in the order `list_models` shows them. Adding a
 * model is a file in this folder, its id in MODEL_IDS and a line here: a model without a plugin does
 * not compile.
 */
export const ENRICHMENT_PLUGINS = {
  [MODEL_IDS.tagger]: imagenetTagger,
  [MODEL_IDS.detector]: cocoDetector,
  [MODEL_IDS.objectCaptioner]: objectCaptioner,
  [MODEL_IDS.imageCaptioner]: tagCaptioner,
  [MODEL_IDS.visionCaptioner]: visionLanguageCaptioner,
  [MODEL_IDS.conceptEncoder]: conceptEncoder,
  [MODEL_IDS.clip]: clip,
} satisfies Record<ModelId, EnrichmentPlugin>;

/** The catalog of GET /enrichment/{id}/list_models: a model is Active only when this install can run it. */
export function enrichmentModels(installed: ModelAvailability): EnrichmentModel[] {
  return Object.values(ENRICHMENT_PLUGINS).map((plugin) => ({ ...plugin.descriptor, status: plugin.available(installed) ? 'Active' : 'Coming Soon' }));
}
