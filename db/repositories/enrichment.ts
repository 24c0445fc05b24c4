import type { Db } from '../connection';
import type { PredictedClass } from '../../lib/ml/imageEncoder';
import { INDEXED_KINDS } from './media';
import { inRange, planIdChunks, type IdRange } from './chunks';
import { updateVersionRows } from './rowUpdates';
import { forgetFacetCounts } from './clusterFacets';

/** The enrichment applied to a version: type → model id. */
export async function setEnrichmentModels(db: Db, versionId: string, models: Record<string, string>): Promise<void> {
  await db('dataset_versions').where({ id: versionId }).update({ enrichment_models: JSON.stringify(models) });
}

export async function enrichmentContextOf(db: Db, datasetId: string): Promise<{ contextId: string; models: Record<string, string> }> {
  const row = await db('datasets as d')
    .join('dataset_versions as v', 'v.id', 'd.head_version_id')
    .where('d.id', datasetId)
    .first('d.enrichment_context_id', 'v.enrichment_models');
  if (!row) throw new Error(`dataset ${datasetId} has no head version`);
  return { contextId: row.enrichment_context_id, models: row.enrichment_models ?? {} };
}

export async function markEnrichedFrom(db: Db, datasetId: string, sourceDatasetId: string): Promise<void> {
  await db('datasets').where({ id: datasetId }).update({ enriched_from_id: sourceDatasetId });
}

export interface MediaToEnrich {
  id: string;
  kind: 'IMAGE' | 'VIDEO_FRAME';
  file_name: string;
  blob_sha256: string;
  predicted_classes: PredictedClass[] | null;
}

/** Indexed media (images and video frames) of the version: what enrichment runs on. */
function enrichable(db: Db, versionId: string) {
  return db('media').where({ version_id: versionId }).whereIn('kind', INDEXED_KINDS).whereNotNull('thumb_sha256');
}

/** Indexed media of the version (of `range` only, when given) that enrichment `type` has not run on yet. */
function pendingFor(db: Db, versionId: string, type: string, range?: IdRange) {
  const query = enrichable(db, versionId).whereRaw('NOT (? = ANY(enriched))', [type]);
  return range ? inRange(query, 'id', range) : query;
}

/** Up to `count` chunks of `size` enrichable media of the version after `after`, and how many chunks they all make. */
export function planEnrichableChunks(db: Db, versionId: string, after: string | null, size: number, count: number) {
  return planIdChunks(db, enrichable(db, versionId), 'id', after, size, count);
}

export async function countMediaToEnrich(db: Db, versionId: string, type: string, range?: IdRange): Promise<number> {
  const [{ count }] = await pendingFor(db, versionId, type, range).count({ count: '*' });
  return Number(count);
}

export async function nextMediaToEnrich(db: Db, versionId: string, type: string, limit: number, range?: IdRange): Promise<MediaToEnrich[]> {
  return pendingFor(db, versionId, type, range).orderBy('id').limit(limit).select('id', 'kind', 'file_name', 'blob_sha256', 'predicted_classes');
}

/** Forgets that `types` ran on a version's media (their model was replaced), so the next run covers all of them. */
export async function resetEnriched(db: Db, versionId: string, types: string[]): Promise<void> {
  for (const type of types) {
    await db('media').where({ version_id: versionId }).whereRaw('? = ANY(enriched)', [type]).update({ enriched: db.raw('array_remove(enriched, ?)', [type]) });
  }
}

/** Records that `type` ran on these media (in the caller's transaction, with its outputs). */
export async function markEnriched(db: Db, versionId: string, type: string, ids: string[]): Promise<void> {
  await db('media')
    .where({ version_id: versionId })
    .whereRaw('id = ANY(?::uuid[])', [ids])
    .update({ enriched: db.raw('array_append(array_remove(enriched, ?), ?)', [type, type]) });
}

export async function savePredictedClasses(db: Db, versionId: string, rows: Array<{ id: string; classes: PredictedClass[] }>): Promise<void> {
  await updateVersionRows(db, 'media', versionId, { classes: 'jsonb' }, 'predicted_classes = r.classes', rows);
}

/** Replaces the labels `source` gave these media (in the caller's transaction: it forgets the version's label counts). */
export async function replaceLabels(
  db: Db,
  versionId: string,
  source: string,
  mediaIds: string[],
  labels: Array<{ mediaId: string; label: string; confidence: number }>,
): Promise<void> {
  await forgetFacetCounts(db, versionId, ['label']);
  await db('media_labels').where({ version_id: versionId, source }).whereRaw('media_id = ANY(?::uuid[])', [mediaIds]).delete();
  if (labels.length === 0) return;
  await db('media_labels')
    .insert(labels.map((row) => ({ version_id: versionId, media_id: row.mediaId, label: row.label, confidence: row.confidence, source })))
    .onConflict(['version_id', 'media_id', 'label'])
    .merge(['confidence', 'source']);
}

export interface ObjectRow {
  id: string;
  media_id: string;
  label: string;
  confidence: number;
  box_x: number;
  box_y: number;
  box_width: number;
  box_height: number;
  caption: string | null;
  /** The image encoder's classes of the object's crop (read in the pass that embedded the crop). */
  predicted_classes: PredictedClass[];
}

/** Replaces the detected objects of these media. */
export async function replaceObjects(db: Db, versionId: string, mediaIds: string[], objects: Array<Omit<ObjectRow, 'caption'>>): Promise<void> {
  await db('media_objects').where({ version_id: versionId }).whereRaw('media_id = ANY(?::uuid[])', [mediaIds]).delete();
  const rows = objects.map((object) => ({ ...object, version_id: versionId, predicted_classes: JSON.stringify(object.predicted_classes) }));
  if (rows.length > 0) await db('media_objects').insert(rows);
}

export async function objectsOf(db: Db, versionId: string, mediaIds: string[]): Promise<ObjectRow[]> {
  return db('media_objects')
    .where({ version_id: versionId })
    .whereRaw('media_id = ANY(?::uuid[])', [mediaIds])
    .orderBy(['media_id', { column: 'confidence', order: 'desc' }])
    .select('id', 'media_id', 'label', 'confidence', 'box_x', 'box_y', 'box_width', 'box_height', 'caption', 'predicted_classes');
}

export async function setObjectCaptions(db: Db, versionId: string, rows: Array<{ id: string; caption: string }>): Promise<void> {
  await updateVersionRows(db, 'media_objects', versionId, { caption: 'text' }, 'caption = r.caption', rows);
}

/** Sets generated captions; changed ones are embedded again for semantic search. */
export async function setCaptions(db: Db, versionId: string, rows: Array<{ id: string; caption: string }>): Promise<void> {
  const set = 'caption = r.caption, caption_embedded = (t.caption IS NOT DISTINCT FROM r.caption AND t.caption_embedded)';
  await updateVersionRows(db, 'media', versionId, { caption: 'text' }, set, rows);
}

/** Records each image's concept vector key (MULTIMODEL_IMAGE_ENCODING). */
export async function setConceptKeys(db: Db, versionId: string, rows: Array<{ id: string; key: string }>): Promise<void> {
  await updateVersionRows(db, 'media', versionId, { key: 'uuid' }, 'concept_key = r.key', rows);
}

/** Every object of a version, by id (the order clustering numbers them in). */
export async function versionObjectIds(db: Db, versionId: string): Promise<string[]> {
  return (await db('media_objects').where({ version_id: versionId }).orderBy('id').select('id')).map((row: { id: string }) => row.id);
}

/** Every object's cluster per threshold, in one transaction (a thousand rows per statement). */
export async function setObjectClusters(db: Db, versionId: string, rows: Array<{ id: string; clusters: string[] }>): Promise<void> {
  await db.transaction(async (trx) => {
    for (let start = 0; start < rows.length; start += 1000) {
      await updateVersionRows(trx, 'media_objects', versionId, { clusters: 'uuid[]' }, 'cluster_ids = r.clusters', rows.slice(start, start + 1000));
    }
  });
}

export async function hasUnclusteredObjects(db: Db, versionId: string): Promise<boolean> {
  return (await db('media_objects').where({ version_id: versionId }).whereNull('cluster_ids').first('id')) !== undefined;
}

export async function hasObjects(db: Db, versionId: string): Promise<boolean> {
  return (await db('media_objects').where({ version_id: versionId }).first('id')) !== undefined;
}

export async function hasObject(db: Db, versionId: string, objectId: string): Promise<boolean> {
  return (await db('media_objects').where({ version_id: versionId, id: objectId }).first('id')) !== undefined;
}
