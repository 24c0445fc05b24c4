import type { Db } from '../connection';
import { bytesToVector, vectorToBytes } from '../../lib/vectors/vectorBytes';

/** Query images uploaded for visual search (anchor_type UPLOAD), with their embedding. */
export async function saveAnchor(
  db: Db,
  anchor: { id: string; datasetId: string; blobSha256: string; boundingBox: object | null; threshold: number | null; vector: Float32Array; createdBy: string },
): Promise<void> {
  await db('search_anchors')
    .insert({
      id: anchor.id,
      dataset_id: anchor.datasetId,
      blob_sha256: anchor.blobSha256,
      bounding_box: anchor.boundingBox ? JSON.stringify(anchor.boundingBox) : null,
      threshold: anchor.threshold,
      vector: vectorToBytes(anchor.vector),
      created_by: anchor.createdBy,
    })
    .onConflict('id')
    .ignore();
}

/** An uploaded anchor's vector and the threshold given at its upload (null: none). */
export async function findAnchor(db: Db, datasetId: string, anchorId: string): Promise<{ vector: Float32Array; threshold: number | null } | undefined> {
  const anchor = await db('search_anchors').where({ id: anchorId, dataset_id: datasetId }).first('vector', 'threshold');
  return anchor ? { vector: bytesToVector(anchor.vector), threshold: anchor.threshold } : undefined;
}
