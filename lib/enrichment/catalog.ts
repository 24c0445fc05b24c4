import fs from 'node:fs';
import path from 'node:path';
import { clipInstalled } from '../ml/clip';
import { DEFAULT_OBJECT_MODEL } from '../ml/objectDetector';
import { VISION_CAPTIONER_ID } from '../ml/visionCaptioner';

/**
 * The enrichment types and model ids (each model is a plugin in services/enrichmentModels). A model is
 * Active only when its weights (or its endpoint) are here; the rest are listed as Coming Soon and
 * cannot be applied. Model ids carry a version suffix: outputs of `@1` and `@2` are never mixed silently.
 */

export const ENRICHMENT_TYPES = ['IMAGE_TAGGING', 'OBJECT_DETECTION', 'CAPTION_IMAGES', 'CAPTION_OBJECTS', 'MULTIMODEL_IMAGE_ENCODING'] as const;
export type EnrichmentType = (typeof ENRICHMENT_TYPES)[number];

/** Labels written by IMAGE_TAGGING and OBJECT_DETECTION carry their type as source, so a re-run replaces exactly them. */
export const TAGGING_SOURCE: EnrichmentType = 'IMAGE_TAGGING';
/** OBJECT_DETECTION's labels: each detected category of an image, at its best confidence (for the labels filter). */
export const DETECTION_SOURCE: EnrichmentType = 'OBJECT_DETECTION';

/** The order an enrichment applies its models in: dependencies first, captions after what they describe. */
export const APPLY_ORDER: readonly EnrichmentType[] = ['IMAGE_TAGGING', 'OBJECT_DETECTION', 'CAPTION_OBJECTS', 'CAPTION_IMAGES', 'MULTIMODEL_IMAGE_ENCODING'];

export interface EnrichmentModel {
  id: string;
  name: string;
  type: EnrichmentType;
  status: 'Active' | 'Coming Soon';
  vendor: string;
  description: string;
  dependencies: EnrichmentType[] | null;
}

/** What is installed or configured here, read by the API (list_models) and by the worker (what it can run). */
export interface ModelAvailability {
  /** The image encoder's manifest names its classifier head (ImageNet-1k for the shipped EfficientNet-Lite0). */
  imageClassifier: boolean;
  /** The COCO detector is installed in MODELS_DIR. */
  objectDetector: boolean;
  /** A CLIP model (vision + text towers) was dropped into MODELS_DIR with its manifest. */
  clip: boolean;
  /** An OpenAI-compatible vision endpoint is configured for captions. */
  visionCaptioner: boolean;
}

export const MODEL_IDS = {
  tagger: 'imagenet-tagger@1',
  detector: 'coco-centernet@1',
  objectCaptioner: 'object-captioner@1',
  imageCaptioner: 'tag-captioner@1',
  conceptEncoder: 'concept-encoder@1',
  clip: 'clip@1',
  visionCaptioner: VISION_CAPTIONER_ID,
} as const;
export type ModelId = (typeof MODEL_IDS)[keyof typeof MODEL_IDS];

/** Reads what is installed in MODELS_DIR (manifests only; nothing is loaded). */
export function modelAvailability(settings: { modelsDir: string; imageModel: string; visionCaptionUrl?: string }): ModelAvailability {
  const manifest = (name: string): Record<string, unknown> | undefined => {
    const file = path.join(settings.modelsDir, `${name}.json`);
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  };
  return {
    imageClassifier: manifest(settings.imageModel)?.classifier !== undefined,
    objectDetector: manifest(DEFAULT_OBJECT_MODEL) !== undefined,
    clip: clipInstalled(settings.modelsDir),
    visionCaptioner: Boolean(settings.visionCaptionUrl),
  };
}
