import type { Db } from '../connection';
import { clusteringOf } from './clusteringOf';
import { forgetFacetCounts } from './clusterFacets';
import type { PredictedClass } from '../../lib/ml/imageEncoder';
import type { MetadataRecord } from '../../lib/metadata/parseMetadataFile';
import type { Issue } from '../../lib/quality/imageIssues';
import { inRange, type IdRange } from './chunks';
import { MEDIA_CLASS_SQL, PREVIEW_TAGS_SQL } from './explore';
import { updateVersionRows } from './rowUpdates';

/** A media row as ingestion writes it (the version and parent are added here). */
export interface NewMedia {
  kind: 'IMAGE' | 'VIDEO' | 'VIDEO_FRAME';
  uploaded_file_id: string;
  batch_id: string;
  file_name: string;
  blob_sha256: string;
  size_bytes: number;
  thumb_sha256?: string | null;
  format?: string | null;
  width?: number | null;
  height?: number | null;
  frame_index?: number | null;
  frame_time_ms?: number | null;
  /** A frame that repeats an earlier frame of its video: that frame's index (lib/quality/repeatedFrames.ts). */
  repeat_of_frame?: number | null;
  /** The thumbnail's print (lib/media/pixelPrint.ts), when ingestion made one. */
  pixel_print?: Buffer | null;
  duration_ms?: number | null;
  mean_luma?: number | null;
  sharpness?: number | null;
  /** JSON text: the label its folder gave it (labels_from=folder), else none. */
  custom_metadata?: string;
}

/** An image or frame as indexing sees it. */
export interface IndexItem {
  id: string;
  kind: 'IMAGE' | 'VIDEO_FRAME';
  parent_id: string | null;
  embedded: boolean;
}

export interface MediaCounts {
  n_images: number;
  n_videos: number;
}

export const INDEXED_KINDS = ['IMAGE', 'VIDEO_FRAME'];

function issueRows(versionId: string, mediaId: string, issues: Issue[]) {
  return issues.map((issue) => ({
    version_id: versionId,
    media_id: mediaId,
    issue_type: issue.type,
    confidence: issue.confidence,
    details: issue.details ? JSON.stringify(issue.details) : null,
  }));
}

/** A top-level media item (image or video) with its frames, and the issues of each row, in the same order. */
export interface MediaGroup {
  rows: NewMedia[];
  issues: Issue[][];
}

/** Inserts groups of media rows (the first of each is the parent of the rest) and their issues, in one transaction. */
export async function insertMediaGroups(db: Db, versionId: string, groups: MediaGroup[]): Promise<void> {
  if (groups.length === 0) return;
  // Rows are matched to what RETURNING gives back by their file and frame, never by position.
  const keyOf = (row: { uploaded_file_id: string; frame_index?: number | null }) => `${row.uploaded_file_id}:${row.frame_index ?? ''}`;
  await db.transaction(async (trx) => {
    const parents: Array<{ id: string; uploaded_file_id: string }> = await trx('media')
      .insert(groups.map((group) => ({ ...group.rows[0], version_id: versionId })))
      .returning(['id', 'uploaded_file_id']);
    const parentOf = new Map(parents.map((row) => [row.uploaded_file_id, row.id]));
    const children = groups.flatMap((group) =>
      group.rows.slice(1).map((row) => ({ ...row, version_id: versionId, parent_id: parentOf.get(row.uploaded_file_id) })),
    );
    const childIds: Array<{ id: string; uploaded_file_id: string; frame_index: number }> =
      children.length > 0 ? await trx('media').insert(children).returning(['id', 'uploaded_file_id', 'frame_index']) : [];
    const idOf = new Map([...parents, ...childIds].map((row) => [keyOf(row), row.id]));
    const rowsOfIssues = groups.flatMap((group) =>
      group.rows.flatMap((row, i) => issueRows(versionId, idOf.get(keyOf(row))!, group.issues[i] ?? [])),
    );
    // New media are in no cluster yet: their issues change no cluster's counts (placing them in clusters counts them).
    if (rowsOfIssues.length > 0) await trx('media_issues').insert(rowsOfIssues);
  });
}

/** Which of `uploadIds` already became media in this version (a resumed ingestion skips them). */
export async function ingestedUploadIds(db: Db, versionId: string, uploadIds: string[]): Promise<Set<string>> {
  const ids: string[] = await db('media')
    .where({ version_id: versionId })
    .whereNull('parent_id')
    .whereIn('uploaded_file_id', uploadIds)
    .pluck('uploaded_file_id');
  return new Set(ids);
}

/** `queryOptions`: pg's per-query options (a copy's longer query_timeout, versions.ts COPY_QUERY_OPTIONS). */
export async function mediaCounts(db: Db, versionId: string, queryOptions: { query_timeout?: number } = {}): Promise<MediaCounts> {
  return db('media')
    .options(queryOptions)
    .where({ version_id: versionId })
    .select(db.raw(`count(*) filter (where kind = 'IMAGE')::int as n_images`), db.raw(`count(*) filter (where kind = 'VIDEO')::int as n_videos`))
    .first();
}

/** Top-level media (images and videos, not frames) a batch brought in. */
export async function countBatchMedia(db: Db, versionId: string, batchId: string): Promise<number> {
  const [{ count }] = await db('media').where({ version_id: versionId, batch_id: batchId }).whereNull('parent_id').count({ count: '*' });
  return Number(count);
}

function pendingEmbedding(db: Db, versionId: string, range?: IdRange) {
  const query = db('media').where({ version_id: versionId, embedded: false }).whereIn('kind', INDEXED_KINDS).whereNotNull('thumb_sha256');
  return range ? inRange(query, 'uploaded_file_id', range) : query;
}

export async function countPendingEmbedding(db: Db, versionId: string, range?: IdRange): Promise<number> {
  const [{ count }] = await pendingEmbedding(db, versionId, range).count({ count: '*' });
  return Number(count);
}

/** The next decodable images and frames without a vector (of the files in `range` only, when given). */
export async function nextPendingEmbedding(
  db: Db,
  versionId: string,
  limit: number,
  range?: IdRange,
): Promise<Array<{ id: string; blob_sha256: string }>> {
  return pendingEmbedding(db, versionId, range).orderBy('id').limit(limit).select('id', 'blob_sha256');
}

/** Marks media embedded, with the classes the encoder's classifier head predicted in the same pass (null without one). */
export async function markEmbedded(db: Db, versionId: string, rows: Array<{ id: string; predictedClasses: PredictedClass[] | null }>): Promise<void> {
  const records = rows.map((row) => ({ id: row.id, classes: row.predictedClasses }));
  await updateVersionRows(db, 'media', versionId, { classes: 'jsonb' }, 'embedded = true, predicted_classes = r.classes', records);
}

/** Captions changed since they were last embedded, one row per distinct caption (its content key). */
/** Whether any media item or object of the version has a caption. */
export async function hasCaptions(db: Db, versionId: string): Promise<boolean> {
  const { rows } = await db.raw(
    `SELECT EXISTS (SELECT 1 FROM media WHERE version_id = ? AND caption IS NOT NULL)
         OR EXISTS (SELECT 1 FROM media_objects WHERE version_id = ? AND caption IS NOT NULL) AS captioned`,
    [versionId, versionId],
  );
  return rows[0].captioned;
}

export async function nextCaptionsToEmbed(db: Db, versionId: string, limit: number): Promise<Array<{ caption_key: string; caption: string }>> {
  return db('media')
    .where({ version_id: versionId, caption_embedded: false })
    .whereNotNull('caption')
    .distinct('caption_key', 'caption')
    .orderBy('caption_key')
    .limit(limit);
}

/** Marks rows whose caption is still one of the embedded texts, so a concurrent change is not lost. */
export async function markCaptionsEmbedded(db: Db, versionId: string, captions: string[]): Promise<void> {
  await db('media').where({ version_id: versionId, caption_embedded: false }).whereIn('caption', captions).update({ caption_embedded: true });
}

/** Captioned, embedded media of one batch with their caption keys (saved-view monitoring). */
export async function captionedBatchMedia(db: Db, versionId: string, batchId: string): Promise<Array<{ id: string; caption_key: string }>> {
  return db('media')
    .where({ version_id: versionId, batch_id: batchId, caption_embedded: true })
    .whereNotNull('caption')
    .select('id', 'caption_key');
}

/** Every image and frame of the version, in a stable order (a full index). */
export async function indexItems(db: Db, versionId: string): Promise<IndexItem[]> {
  return db('media').where({ version_id: versionId }).whereIn('kind', INDEXED_KINDS).orderBy('id').select('id', 'kind', 'parent_id', 'embedded');
}

/** How many images and frames the version holds (the items indexItems lists). */
export async function indexItemCount(db: Db, versionId: string): Promise<number> {
  return Number((await db('media').where({ version_id: versionId }).whereIn('kind', INDEXED_KINDS).count({ n: '*' }))[0].n);
}

/** indexItems as columns: no object per item for a step that holds every item of a version (a million at a time). */
export interface IndexItemColumns {
  ids: string[];
  /** 1 for an embedded item. */
  embedded: Uint8Array;
  /** The parent video of each frame, by its place in `ids` (images have none). */
  parents: Map<number, string>;
}

export async function indexItemColumns(db: Db, versionId: string): Promise<IndexItemColumns> {
  const rows: Array<{ id: string; embedded: boolean; parent_id: string | null }> = await db('media')
    .where({ version_id: versionId })
    .whereIn('kind', INDEXED_KINDS)
    .orderBy('id')
    .select('id', 'embedded', 'parent_id');
  const parents = new Map<number, string>();
  rows.forEach((row, i) => row.parent_id !== null && parents.set(i, row.parent_id));
  return { ids: rows.map((row) => row.id), embedded: Uint8Array.from(rows, (row) => (row.embedded ? 1 : 0)), parents };
}

/** Images and frames of one batch not yet placed into the clusters. */
export async function unplacedBatchItems(db: Db, versionId: string, batchId: string): Promise<IndexItem[]> {
  return db('media as m')
    .where({ 'm.version_id': versionId, 'm.batch_id': batchId })
    .whereIn('m.kind', INDEXED_KINDS)
    .whereNotExists(
      db('cluster_members as cm').where('cm.clustering_id', clusteringOf(db, versionId)).whereRaw('cm.media_id = m.id').where('cm.threshold', 0),
    )
    .orderBy('m.id')
    .select('m.id', 'm.kind', 'm.parent_id', 'm.embedded');
}

/** The parent video (if any) of each of `ids`; one array parameter, so any number of ids fits. */
export async function parentsOf(db: Db, versionId: string, ids: string[]): Promise<Array<{ id: string; parent_id: string | null }>> {
  return db('media').where({ version_id: versionId }).whereRaw('id = ANY(?::uuid[])', [ids]).select('id', 'parent_id');
}

/** Images and videos by id and file name, which custom metadata records are matched against. */
export async function topLevelMediaNames(db: Db, versionId: string): Promise<Array<{ id: string; file_name: string }>> {
  return db('media').where({ version_id: versionId }).whereIn('kind', ['IMAGE', 'VIDEO']).select('id', 'file_name');
}

/**
 * Applies one custom metadata record to a media item: a caption (to be embedded again), fields
 * merged into custom_metadata, and labels replacing the earlier custom ones.
 */
export async function applyMetadataRecord(db: Db, versionId: string, mediaId: string, record: MetadataRecord): Promise<void> {
  const patch: Record<string, unknown> = {};
  if (record.caption !== undefined) Object.assign(patch, { caption: record.caption, caption_embedded: false });
  if (Object.keys(record.fields).length > 0) {
    patch.custom_metadata = db.raw(`coalesce(custom_metadata, '{}'::jsonb) || ?::jsonb`, [JSON.stringify(record.fields)]);
  }
  if (Object.keys(patch).length > 0) await db('media').where({ version_id: versionId, id: mediaId }).update(patch);
  if (!record.labels) return;
  await forgetFacetCounts(db, versionId, ['label']);
  await db('media_labels').where({ version_id: versionId, media_id: mediaId, source: 'custom' }).delete();
  if (record.labels.length === 0) return;
  await db('media_labels')
    .insert([...new Set(record.labels)].map((label) => ({ version_id: versionId, media_id: mediaId, label, source: 'custom' })))
    .onConflict(['version_id', 'media_id', 'label'])
    .ignore();
}

/**
 * The bytes of a media item behind a signed link. A media id names the same immutable content in
 * every version that holds it, so any of its rows answers.
 */
export async function findMediaContent(
  db: Db,
  mediaId: string,
): Promise<{ kind: NewMedia['kind']; file_name: string; blob_sha256: string; thumb_sha256: string | null } | undefined> {
  return db('media').where({ id: mediaId }).first('kind', 'file_name', 'blob_sha256', 'thumb_sha256');
}

/** What the viewer shows of one image or video of the version, or undefined when the version has no such item. */
export interface MediaFactsRow {
  id: string;
  kind: 'IMAGE' | 'VIDEO' | 'VIDEO_FRAME';
  file_name: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  caption: string | null;
  labels: string[];
  /** Its class: the value of the version's declared label field, null when it has none or none is declared. */
  class: string | null;
  tags: Array<{ id: string; name: string }>;
  issues: string[];
  /** Details of the label-quality issues, by type (mislabel, leakage). */
  label_issues: Record<string, Record<string, unknown>>;
}

export async function mediaFacts(db: Db, versionId: string, mediaId: string): Promise<MediaFactsRow | undefined> {
  const { rows } = await db.raw(
    `SELECT m.id, m.kind, m.file_name, m.size_bytes, m.width, m.height, m.caption,
            coalesce((SELECT array_agg(l.label ORDER BY l.label) FROM media_labels l WHERE l.version_id = m.version_id AND l.media_id = m.id), '{}') AS labels,
            ${MEDIA_CLASS_SQL} AS class,
            coalesce(${PREVIEW_TAGS_SQL}, '[]') AS tags,
            coalesce((SELECT array_agg(i.issue_type ORDER BY i.issue_type) FROM media_issues i WHERE i.version_id = m.version_id AND i.media_id = m.id), '{}') AS issues,
            coalesce((SELECT json_object_agg(i.issue_type, i.details) FROM media_issues i
                       WHERE i.version_id = m.version_id AND i.media_id = m.id AND i.issue_type IN ('mislabel', 'leakage')), '{}') AS label_issues
       FROM media m
      WHERE m.version_id = ? AND m.id = ?`,
    [versionId, mediaId],
  );
  const row = rows[0];
  return row ? { ...row, size_bytes: Number(row.size_bytes) } : undefined;
}

/** A media item as the dataset's media listing shows it. */
export interface MediaListingRow {
  id: string;
  kind: 'IMAGE' | 'VIDEO' | 'VIDEO_FRAME';
  file_name: string;
  /** The video a frame was taken from; null for images and videos. */
  parent_id: string | null;
  class: string | null;
  size_bytes: number | null;
  width: number | null;
  height: number | null;
  /** A copy a duplicate review discarded (still in the dataset; exports leave it out by default). */
  discarded: boolean;
  created_at: Date;
}

/** A page of the version's media in id order (the primary key's, so a page costs no sort), and how many it holds. */
export async function listVersionMedia(db: Db, versionId: string, page: { offset: number; limit: number }): Promise<{ rows: MediaListingRow[]; total: number }> {
  const [{ rows }, [{ total }]] = await Promise.all([
    db.raw(
      `SELECT m.id, m.kind, m.file_name, m.parent_id, m.size_bytes, m.width, m.height, m.created_at,
              ${MEDIA_CLASS_SQL} AS class,
              EXISTS (SELECT 1 FROM duplicate_decisions dd WHERE dd.version_id = m.version_id AND dd.media_id = m.id AND dd.role = 'discard') AS discarded
         FROM media m
        WHERE m.version_id = ?
        ORDER BY m.id
        LIMIT ? OFFSET ?`,
      [versionId, page.limit, page.offset],
    ),
    db('media').where({ version_id: versionId }).count({ total: '*' }),
  ]);
  return {
    rows: rows.map((row: MediaListingRow) => ({ ...row, size_bytes: row.size_bytes === null ? null : Number(row.size_bytes) })),
    total: Number(total),
  };
}
