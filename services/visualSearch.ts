import { randomUUID } from 'node:crypto';
import { ApplicationFailure, WorkflowFailedError, type Client } from '@temporalio/client';
import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { findAnchor, saveAnchor } from '../db/repositories/anchors';
import type { DatasetRow } from '../db/repositories/datasets';
import type { Relevance } from '../db/repositories/explore';
import { conflict, invalid, notFound, unprocessable } from '../lib/errors';
import { cropToBox, type BoundingBox } from '../lib/media/crop';
import type { ImageEncoder } from '../lib/ml/imageEncoder';
import { requireStatusFor } from './datasetStates';
import type { StagedFile } from '../lib/storage/staging';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import { imageCollection, objectCollection, type VectorStore } from '../lib/vectors/vectorStore';
import { hasObject, hasObjects } from '../db/repositories/enrichment';
import type { QueryImage } from '../workflows/contracts';
import { storeBlobs } from './blobWrites';

/** How many nearest media a visual search ranks (its clusters are then paged as usual). */
export const VISUAL_SEARCH_LIMIT = 1000;

export function requireVisualIndex(dataset: DatasetRow): void {
  requireStatusFor(dataset, 'visual_search');
  if (!dataset.embedding_config) throw conflict(`Dataset ${dataset.id} has no visual embedding`);
}

/**
 * Stores the query image and has the worker embed it (cropped to `box`), keeping the clustering
 * `threshold` given with it, which Explore's must match; returns the anchor id.
 */
export async function createUploadAnchor(
  deps: { db: Db; store: ObjectStore; temporal: Client; taskQueue: string },
  dataset: DatasetRow,
  user: User,
  file: StagedFile,
  box: BoundingBox | null,
  threshold: number | null,
): Promise<string> {
  requireVisualIndex(dataset);
  const anchorId = randomUUID();
  try {
    // The worker writes the anchor's row, naming the blob, before the workflow completes.
    await storeBlobs(deps, [file], () =>
      deps.temporal.workflow.execute('encodeQueryImageWorkflow', {
        taskQueue: deps.taskQueue,
        workflowId: `anchor-${anchorId}`,
        args: [{ anchorId, datasetId: dataset.id, blobSha256: file.sha256, boundingBox: box, threshold, createdBy: user.id } satisfies QueryImage],
        workflowExecutionTimeout: '2 minutes',
      }),
    );
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause?.cause ?? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === 'UndecodableImage') throw invalid(cause.message);
    throw error;
  }
  return anchorId;
}

/**
 * The query vector of an anchor: an uploaded image (UPLOAD; searched at the threshold given with
 * it, if one was) or a media item or detected object of the dataset (MEDIA).
 */
async function anchorVector(
  deps: { db: Db; vectors: VectorStore },
  dataset: DatasetRow,
  anchor: { id: string; type: 'UPLOAD' | 'MEDIA' },
  threshold: number,
): Promise<Float32Array> {
  const anchorId = anchor.id;
  if (anchor.type === 'UPLOAD') {
    const upload = await findAnchor(deps.db, dataset.id, anchorId);
    if (!upload) throw notFound(`Anchor ${anchorId} not found for this dataset`);
    if (upload.threshold !== null && upload.threshold !== threshold) {
      throw unprocessable(`threshold must match the one given at the anchor's upload (${upload.threshold}; this search has ${threshold})`);
    }
    return upload.vector;
  }
  const vector =
    (await deps.vectors.get(imageCollection(dataset.vector_space_id), [anchorId])).get(anchorId) ??
    ((await hasObject(deps.db, dataset.head_version_id, anchorId)) ? (await deps.vectors.get(objectCollection(dataset.vector_space_id), [anchorId])).get(anchorId) : undefined);
  if (!vector) throw notFound(`Media ${anchorId} not found in this dataset's visual index`);
  return vector;
}

/** The worker's half of an anchor upload: embeds the query image (cropped first) and stores it as the anchor; an unreadable image fails for good. */
export async function embedQueryImage(deps: { db: Db; store: ObjectStore; encoder: ImageEncoder }, query: QueryImage): Promise<void> {
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
}

/**
 * Nearest media (IMAGES) or detected objects (OBJECTS: crops compared with the query, in the same
 * image encoder space) of the dataset to the anchor, as Explore's relevance ranking.
 */
export async function visualRelevance(
  deps: { db: Db; vectors: VectorStore },
  dataset: DatasetRow,
  search: { anchor: { id: string; type: 'UPLOAD' | 'MEDIA' }; entityType: 'IMAGES' | 'OBJECTS'; threshold: number },
): Promise<Relevance> {
  requireVisualIndex(dataset);
  const vector = await anchorVector(deps, dataset, search.anchor, search.threshold);
  const objects = search.entityType === 'OBJECTS';
  const collection = objects ? objectCollection(dataset.vector_space_id) : imageCollection(dataset.vector_space_id);
  // A dataset never enriched with OBJECT_DETECTION has no object collection: no object is near anything.
  if (objects && !(await hasObjects(deps.db, dataset.head_version_id))) return { by: [{ key: 'object_id', ids: [], distances: [] }] };
  const [hits] = await deps.vectors.searchMany(collection, [vector], VISUAL_SEARCH_LIMIT);
  return { by: [{ key: objects ? 'object_id' : 'id', ids: hits.map((hit) => hit.id), distances: hits.map((hit) => hit.distance) }] };
}
