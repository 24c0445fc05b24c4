import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { saveAnchor } from '../db/repositories/anchors';
import { cropToBox, type BoundingBox } from '../lib/media/crop';
import type { ImageEncoder } from '../lib/ml/imageEncoder';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';

export interface QueryImage {
  anchorId: string;
  datasetId: string;
  blobSha256: string;
  boundingBox: BoundingBox | null;
  /** The clustering threshold given with the upload (absent in workflows started before it was kept). */
  threshold?: number | null;
  createdBy: string;
}

/** Embeds an uploaded query image (cropped first) and stores it as a visual-search anchor. */
export function createVisualSearchActivities(deps: { db: Db; store: ObjectStore; encoder: ImageEncoder }) {
  return {
    async encodeQueryImage(query: QueryImage): Promise<void> {
      const original = await deps.store.get(blobKey(query.blobSha256));
      let vector: Float32Array;
      try {
        const image = query.boundingBox ? await cropToBox(original, query.boundingBox) : original;
        [vector] = await deps.encoder.encode([image]);
      } catch (error) {
        throw ApplicationFailure.create({
          type: 'UndecodableImage',
          message: `The uploaded file is not a readable image: ${(error as Error).message}`,
          nonRetryable: true,
        });
      }
      await saveAnchor(deps.db, {
        id: query.anchorId,
        datasetId: query.datasetId,
        blobSha256: query.blobSha256,
        boundingBox: query.boundingBox,
        threshold: query.threshold ?? null,
        vector,
        createdBy: query.createdBy,
      });
    },
  };
}
