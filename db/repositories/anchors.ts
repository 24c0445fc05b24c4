import type { Db } from '../connection';
import { bytesToVector, vectorToBytes } from '../../lib/vectors/vectorBytes';

/** Query images uploaded for visual search (anchor_type UPLOAD), with their embedding. */
export async function saveAnchor(
  db: Db,
  anchor: { id: string; datasetId: string; blobSha256: string; boundingBox: object | null; vector: Float32Array; createdBy: string },
): Promise<void> {
  await db('search_anchors')
    .insert({
      id: anchor.id,
      dataset_id: anchor.datasetId,
      blob_sha256: anchor.blobSha256,
      bounding_box: anchor.boundingBox ? JSON.stringify(anchor.boundingBox) : null,
      vector: vectorToBytes(anchor.vector),
      created_by: anchor.createdBy,
    })
    .onConflict('id')
    .ignore();
}

export async function findAnchorVector(db: Db, datasetId: string, anchorId: string): Promise<Float32Array | undefined> {
  const anchor = await db('search_anchors').where({ id: anchorId, dataset_id: datasetId }).first('vector');
  return anchor ? bytesToVector(anchor.vector) : undefined;
}
