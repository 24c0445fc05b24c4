import { ApplicationFailure } from '@temporalio/common';
import { setCaptions } from '../../db/repositories/enrichment';
import { MODEL_IDS } from '../../lib/enrichment/catalog';
import { contentTypeOf } from '../../lib/media/mediaTypes';
import { VisionCaptionError } from '../../lib/ml/visionCaptioner';
import { blobKey } from '../../lib/storage/objectStore';
import { enrichmentPlugin } from './plugin';

/** Captions by a vision language model behind an OpenAI-compatible endpoint (VISION_CAPTION_URL). */
export const visionLanguageCaptioner = enrichmentPlugin({
  descriptor: {
    id: MODEL_IDS.visionCaptioner,
    name: 'Vision language model (OpenAI-compatible endpoint)',
    type: 'CAPTION_IMAGES',
    vendor: 'The endpoint configured in VISION_CAPTION_URL (vLLM, Ollama, …)',
    description: 'Asks a vision language model served behind an OpenAI-compatible chat completions endpoint for a one-sentence caption of each image.',
    dependencies: null,
  },
  available: (installed) => installed.visionCaptioner,
  run: ({ store, visionCaptioner: captioner }) => ({
    async infer(_version, batch) {
      if (!captioner) throw ApplicationFailure.create({ type: 'ModelUnavailable', message: 'VISION_CAPTION_URL is not set on this worker', nonRetryable: true });
      const captions = [];
      for (const media of batch) {
        try {
          captions.push({ id: media.id, caption: await captioner.caption(await store.get(blobKey(media.blob_sha256)), contentTypeOf(media.file_name, media.kind)) });
        } catch (error) {
          // A wrong key or model name fails the task at once; an overloaded or unreachable endpoint is retried.
          if (error instanceof VisionCaptionError && !error.retryable) {
            throw ApplicationFailure.create({ type: 'VisionCaptionRefused', message: error.message, nonRetryable: true });
          }
          throw error;
        }
      }
      return captions;
    },
    write: (trx, version, _batch, captions) => setCaptions(trx, version.id, captions),
  }),
});
