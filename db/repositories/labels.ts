import type { Db } from '../connection';
import { forgetFacetCounts } from './clusterFacets';

const WRITE_BATCH = 10_000;

/**
 * Gives each media item `label` from `source` at its confidence. A label the item already has from
 * another source stays as it is; one it has from the same source keeps the higher confidence. Call it
 * in a transaction: it forgets the version's label counts.
 */
export async function applyLabel(
  db: Db,
  versionId: string,
  label: string,
  source: string,
  rows: Array<{ mediaId: string; confidence: number }>,
): Promise<void> {
  if (rows.length > 0) await forgetFacetCounts(db, versionId, ['label']);
  for (let start = 0; start < rows.length; start += WRITE_BATCH) {
    const batch = rows.slice(start, start + WRITE_BATCH);
    await db.raw(
      `INSERT INTO media_labels (version_id, media_id, label, source, confidence)
       SELECT ?, r.media_id, ?, ?, r.confidence FROM unnest(?::uuid[], ?::real[]) AS r(media_id, confidence)
       ON CONFLICT (version_id, media_id, label) DO UPDATE SET confidence = greatest(media_labels.confidence, EXCLUDED.confidence)
       WHERE media_labels.source = EXCLUDED.source`,
      [versionId, label, source, batch.map((row) => row.mediaId), batch.map((row) => row.confidence)],
    );
  }
}
