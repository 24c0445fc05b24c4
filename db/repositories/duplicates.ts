import type { Knex } from 'knex';
import type { Db } from '../connection';
import type { Candidate } from '../../lib/quality/duplicateKeeper';
import { decodePrint } from '../../lib/media/pixelPrint';
import type { KeeperMerge, LabelFact, MemberFacts, MergeConflict } from '../../lib/quality/duplicateMerge';
import type { DuplicateTier } from '../../lib/quality/pixelMatch';
import { clustersOfMedia, countedKinds, forgetFacetCounts, recountClusterFacets, writeTagChange } from './clusterFacets';

/** One near-duplicate pair the analysis found: an image and one of its nearest copies at `similarity`, its tier and why. */
export interface DuplicateEdge {
  mediaId: string;
  duplicateOf: string;
  similarity: number;
  tier: DuplicateTier;
  reason: string;
}

export type DecisionRole = 'keep' | 'discard' | 'distinct';

export interface DecisionRow {
  mediaId: string;
  decisionId: string;
  role: DecisionRole;
  decidedAt: Date;
  decidedBy: string | null;
  /** The Accept all that made it, if one did. */
  actionId: string | null;
  /** On a keeper's row: what resolving the group gave it and the conflicts it left. */
  merged: MergeRecord | null;
}

/** What a merge changed on a keeper (what an undo takes back) and the conflicts it left to the curator. */
export interface MergeRecord {
  labels: LabelFact[];
  tagIds: string[];
  metadata: Record<string, unknown>;
  conflicts: MergeConflict[];
}

/** What the review shows of a member: its size, resolution, encoding, upload time and quality issues. */
export type DuplicateMemberRow = Candidate;

/**
 * The pairs of a media item's duplicates (or similar) issue: `details.pairs`, best first, whose first the details'
 * own `duplicate_of`/`similarity`/`tier`/`reason` repeat; an issue written before items had several pairs is its one pair.
 */
const PAIRS_OF_ISSUE = `jsonb_to_recordset(coalesce(i.details->'pairs', jsonb_build_array(i.details)))
  AS p(duplicate_of uuid, similarity float8, tier text, reason text)`;

/**
 * The version's image pairs at `similarity` or above in the tiers asked for (frames of videos are reviewed with their
 * video elsewhere). A pair analysed before tiers existed counts as similar: the embedding alone found it.
 */
export async function duplicateEdges(db: Db, versionId: string, similarity: number, tiers: readonly DuplicateTier[]): Promise<DuplicateEdge[]> {
  const { rows } = await db.raw(
    `SELECT i.media_id, p.duplicate_of, p.similarity, coalesce(p.tier, 'similar') AS tier, coalesce(p.reason, 'similar content') AS reason
       FROM media_issues i
      CROSS JOIN LATERAL ${PAIRS_OF_ISSUE}
       JOIN media m ON m.version_id = i.version_id AND m.id = i.media_id AND m.kind = 'IMAGE'
       JOIN media o ON o.version_id = i.version_id AND o.id = p.duplicate_of AND o.kind = 'IMAGE'
      WHERE i.version_id = ? AND i.issue_type IN ('duplicates', 'similar') AND p.similarity >= ?
        AND coalesce(p.tier, 'similar') = ANY(?::text[])`,
    [versionId, similarity, [...tiers]],
  );
  return rows.map((row: { media_id: string; duplicate_of: string; similarity: number; tier: DuplicateTier; reason: string }) => ({
    mediaId: row.media_id,
    duplicateOf: row.duplicate_of,
    similarity: row.similarity,
    tier: row.tier,
    reason: row.reason,
  }));
}

/** A pair of frames of two different videos, with when each was sampled. */
export interface VideoFramePairRow {
  videoA: string;
  videoB: string;
  timeA: number;
  timeB: number;
  similarity: number;
  tier: DuplicateTier;
}

/** The version's pairs between frames of different videos at `similarity` or above, each pair once (videoA < videoB). */
export async function videoFramePairs(db: Db, versionId: string, similarity: number): Promise<VideoFramePairRow[]> {
  const { rows } = await db.raw(
    `SELECT DISTINCT ON (least(a.id, b.id), greatest(a.id, b.id))
            CASE WHEN a.parent_id < b.parent_id THEN a.parent_id ELSE b.parent_id END AS video_a,
            CASE WHEN a.parent_id < b.parent_id THEN b.parent_id ELSE a.parent_id END AS video_b,
            CASE WHEN a.parent_id < b.parent_id THEN a.frame_time_ms ELSE b.frame_time_ms END AS time_a,
            CASE WHEN a.parent_id < b.parent_id THEN b.frame_time_ms ELSE a.frame_time_ms END AS time_b,
            p.similarity, coalesce(p.tier, 'similar') AS tier
       FROM media_issues i
      CROSS JOIN LATERAL ${PAIRS_OF_ISSUE}
       JOIN media a ON a.version_id = i.version_id AND a.id = i.media_id AND a.kind = 'VIDEO_FRAME'
       JOIN media b ON b.version_id = i.version_id AND b.id = p.duplicate_of AND b.kind = 'VIDEO_FRAME'
      WHERE i.version_id = ? AND i.issue_type IN ('duplicates', 'similar') AND p.similarity >= ? AND a.parent_id <> b.parent_id
      ORDER BY least(a.id, b.id), greatest(a.id, b.id), p.similarity DESC`,
    [versionId, similarity],
  );
  return rows.map((row: { video_a: string; video_b: string; time_a: number; time_b: number; similarity: number; tier: DuplicateTier }) => ({
    videoA: row.video_a,
    videoB: row.video_b,
    timeA: row.time_a,
    timeB: row.time_b,
    similarity: row.similarity,
    tier: row.tier,
  }));
}

/** How many frames each of `videoIds` has in the version. */
export async function framesPerVideo(db: Db, versionId: string, videoIds: string[]): Promise<Map<string, number>> {
  const rows: Array<{ parent_id: string; frames: number }> = await db('media')
    .where({ version_id: versionId, kind: 'VIDEO_FRAME' })
    .whereRaw('parent_id = ANY(?::uuid[])', [videoIds])
    .groupBy('parent_id')
    .select('parent_id', db.raw('count(*)::int AS frames'));
  return new Map(rows.map((row) => [row.parent_id, row.frames]));
}

/** Pairs of the version's videos with the same bytes. */
export async function sameBytesVideos(db: Db, versionId: string): Promise<Array<{ videoA: string; videoB: string }>> {
  const { rows } = await db.raw(
    `SELECT a.id AS video_a, b.id AS video_b
       FROM media a JOIN media b ON b.version_id = a.version_id AND b.blob_sha256 = a.blob_sha256 AND b.kind = 'VIDEO' AND a.id < b.id
      WHERE a.version_id = ? AND a.kind = 'VIDEO'`,
    [versionId],
  );
  return rows.map((row: { video_a: string; video_b: string }) => ({ videoA: row.video_a, videoB: row.video_b }));
}

/** A media item's pairs whose tiers are not decided yet: as the analysis wrote them, from the embedding alone, nearest first. */
export interface UntieredPairs {
  mediaId: string;
  pairs: Array<{ duplicateOf: string; similarity: number }>;
}

/** The pairs of up to `limit` media items of the version whose duplicates issue has no tier, in media id order after `after`. */
export async function untieredPairs(db: Db, versionId: string, after: string | null, limit: number): Promise<UntieredPairs[]> {
  const { rows } = await db.raw(
    `SELECT i.media_id,
            (SELECT jsonb_agg(jsonb_build_object('duplicate_of', p.duplicate_of, 'similarity', p.similarity) ORDER BY p.similarity DESC) FROM ${PAIRS_OF_ISSUE}) AS pairs
       FROM media_issues i
      WHERE i.version_id = ? AND i.issue_type = 'duplicates' AND i.details->>'tier' IS NULL AND i.media_id > ?
      ORDER BY i.media_id LIMIT ?`,
    [versionId, after ?? '00000000-0000-0000-0000-000000000000', limit],
  );
  return rows.map((row: { media_id: string; pairs: Array<{ duplicate_of: string; similarity: number }> }) => ({
    mediaId: row.media_id,
    pairs: row.pairs.map((pair) => ({ duplicateOf: pair.duplicate_of, similarity: pair.similarity })),
  }));
}

export interface TierFactsRow {
  id: string;
  blobSha256: string;
  thumbSha256: string | null;
  width: number | null;
  height: number | null;
  sizeBytes: number | null;
  format: string | null;
  pixelPrint: Buffer | null;
}

export async function tierFactsOf(db: Db, versionId: string, mediaIds: string[]): Promise<TierFactsRow[]> {
  const rows: Array<{ id: string; blob_sha256: string; thumb_sha256: string | null; width: number | null; height: number | null; size_bytes: string | null; format: string | null; pixel_print: Buffer | null }> =
    await db('media')
      .where({ version_id: versionId })
      .whereRaw('id = ANY(?::uuid[])', [mediaIds])
      .select('id', 'blob_sha256', 'thumb_sha256', 'width', 'height', 'size_bytes', 'format', 'pixel_print');
  return rows.map((row) => ({
    id: row.id,
    blobSha256: row.blob_sha256,
    thumbSha256: row.thumb_sha256,
    width: row.width,
    height: row.height,
    sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
    format: row.format,
    pixelPrint: row.pixel_print,
  }));
}

/** Keeps the prints made from thumbnails on the version's media rows (copies of the version carry them). */
export async function savePixelPrints(db: Db, versionId: string, prints: Array<{ mediaId: string; print: Buffer }>): Promise<void> {
  if (prints.length === 0) return;
  await db.raw(
    `UPDATE media m SET pixel_print = p.print
       FROM unnest(?::uuid[], ?::bytea[]) AS p(id, print)
      WHERE m.version_id = ? AND m.id = p.id`,
    [prints.map((entry) => entry.mediaId), prints.map((entry) => entry.print), versionId],
  );
}

/** A media item's pairs with their tiers, best first (betterPairFirst, lib/quality/pixelMatch.ts). */
export interface TieredPairs {
  mediaId: string;
  pairs: DuplicateEdge[];
}

/**
 * Writes the tiers decided for media items' pairs: the issue's details name its best pair and list them all (`pairs`),
 * and its type follows the best tier: exact and near-identical stay `duplicates`, similar becomes a `similar` issue
 * (replacing an earlier one of the media item). Pairs move between those issue types, so the version's issue counts
 * change: `counts` 'recount' counts those of the items' clusters again in the same transaction (when they are
 * current), as an added batch's few items want; 'forget' leaves the whole version to be counted once at the end, as
 * the many rounds of a whole version's pairs want.
 */
export async function writePairTiers(db: Db, versionId: string, tiered: TieredPairs[], counts: 'recount' | 'forget'): Promise<void> {
  if (tiered.length === 0) return;
  const values = JSON.stringify(
    tiered.map(({ mediaId, pairs }) => {
      const listed = pairs.map((pair) => ({ duplicate_of: pair.duplicateOf, similarity: pair.similarity, tier: pair.tier, reason: pair.reason }));
      return { media_id: mediaId, ...listed[0], pairs: listed };
    }),
  );
  const tiers = 'jsonb_to_recordset(?::jsonb) AS t(media_id uuid, duplicate_of uuid, similarity float8, tier text, reason text, pairs jsonb)';
  await db.transaction(async (trx) => {
    const recounted = counts === 'recount' ? (await countedKinds(trx, versionId)).filter((kind) => kind === 'issue') : [];
    if (counts === 'forget') await forgetFacetCounts(trx, versionId, ['issue']);
    await trx.raw(
      `DELETE FROM media_issues i USING ${tiers}
        WHERE i.version_id = ? AND i.media_id = t.media_id AND i.issue_type = 'similar' AND t.tier = 'similar'`,
      [values, versionId],
    );
    await trx.raw(
      `UPDATE media_issues i
          SET issue_type = CASE WHEN t.tier = 'similar' THEN 'similar' ELSE 'duplicates' END,
              confidence = least(1, greatest(0, t.similarity)),
              details = i.details || jsonb_build_object('duplicate_of', t.duplicate_of, 'similarity', t.similarity, 'tier', t.tier, 'reason', t.reason, 'pairs', t.pairs)
         FROM ${tiers}
        WHERE i.version_id = ? AND i.media_id = t.media_id AND i.issue_type = 'duplicates' AND i.details->>'tier' IS NULL`,
      [values, versionId],
    );
    const clusters = recounted.length > 0 ? await clustersOfMedia(trx, versionId, tiered.map(({ mediaId }) => mediaId)) : [];
    await recountClusterFacets(trx, versionId, clusters, recounted);
  });
}

export async function decisionsOf(db: Db, versionId: string): Promise<DecisionRow[]> {
  return db('duplicate_decisions')
    .where({ version_id: versionId })
    .select({ mediaId: 'media_id', decisionId: 'decision_id', role: 'role', decidedAt: 'decided_at', decidedBy: 'decided_by', actionId: 'action_id', merged: 'merged' });
}

export async function duplicateMembers(db: Db, versionId: string, mediaIds: string[]): Promise<DuplicateMemberRow[]> {
  const { rows } = await db.raw(
    `SELECT m.id, m.file_name, m.width, m.height, m.size_bytes, m.format, m.duration_ms, m.created_at, m.pixel_print,
            coalesce(array_agg(i.issue_type ORDER BY i.issue_type) FILTER (WHERE i.issue_type IS NOT NULL AND i.issue_type NOT IN ('duplicates', 'similar')), '{}') AS issues
       FROM media m
       LEFT JOIN media_issues i ON i.version_id = m.version_id AND i.media_id = m.id
      WHERE m.version_id = ? AND m.id = ANY(?::uuid[])
      GROUP BY m.id, m.file_name, m.width, m.height, m.size_bytes, m.format, m.duration_ms, m.created_at, m.pixel_print`,
    [versionId, mediaIds],
  );
  type Row = {
    id: string;
    file_name: string;
    width: number | null;
    height: number | null;
    size_bytes: string | null;
    format: string | null;
    duration_ms: number | null;
    created_at: Date;
    pixel_print: Buffer | null;
    issues: string[];
  };
  return rows.map((row: Row) => ({
    id: row.id,
    fileName: row.file_name,
    width: row.width,
    height: row.height,
    sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
    format: row.format,
    durationMs: row.duration_ms,
    createdAt: row.created_at,
    issues: row.issues,
    print: row.pixel_print && decodePrint(row.pixel_print),
  }));
}

/** The ids of `mediaIds` that are not images or videos of the version (a video's frames go with it). */
export async function unknownReviewedIds(db: Db, versionId: string, mediaIds: string[]): Promise<string[]> {
  const { rows } = await db.raw(
    `SELECT id FROM unnest(?::uuid[]) AS ids(id)
      WHERE NOT EXISTS (SELECT 1 FROM media m WHERE m.version_id = ? AND m.id = ids.id AND m.kind IN ('IMAGE', 'VIDEO'))`,
    [mediaIds, versionId],
  );
  return rows.map((row: { id: string }) => row.id);
}

export interface NewDecision {
  decisionId: string;
  members: Array<{ mediaId: string; role: DecisionRole; merged?: MergeRecord }>;
}

/** Rows a batched insert sends at once (Postgres takes at most 65,535 parameters a statement). */
const INSERT_BATCH = 5000;

/**
 * Records decisions (in the caller's transaction); a member decided before is decided anew (its earlier row
 * replaced, with what that decision merged into it staying), so the latest decision about a media item is the one that holds.
 */
export async function recordDecisions(trx: Db, versionId: string, userId: string, decisions: NewDecision[], actionId: string | null = null): Promise<void> {
  const rows = decisions.flatMap((decision) =>
    decision.members.map((member) => ({
      version_id: versionId,
      media_id: member.mediaId,
      decision_id: decision.decisionId,
      role: member.role,
      decided_by: userId,
      action_id: actionId,
      merged: member.merged ? JSON.stringify(member.merged) : null,
    })),
  );
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    await trx('duplicate_decisions')
      .insert(rows.slice(start, start + INSERT_BATCH))
      .onConflict(['version_id', 'media_id'])
      .merge(['decision_id', 'role', 'decided_by', 'decided_at', 'action_id', 'merged']);
  }
}

/** The labels, tags and custom metadata of `mediaIds` in the version: what a merge moves. */
export async function memberFacts(db: Db, versionId: string, mediaIds: string[]): Promise<MemberFacts[]> {
  const { rows } = await db.raw(
    `SELECT m.id, coalesce(m.custom_metadata, '{}'::jsonb) AS metadata,
            coalesce((SELECT jsonb_agg(jsonb_build_object('label', l.label, 'source', l.source, 'confidence', l.confidence) ORDER BY l.label)
                        FROM media_labels l WHERE l.version_id = m.version_id AND l.media_id = m.id), '[]'::jsonb) AS labels,
            coalesce((SELECT array_agg(t.tag_id ORDER BY t.tag_id) FROM media_tags t WHERE t.version_id = m.version_id AND t.media_id = m.id), '{}') AS tag_ids
       FROM media m WHERE m.version_id = ? AND m.id = ANY(?::uuid[])`,
    [versionId, mediaIds],
  );
  return rows.map((row: { id: string; metadata: Record<string, unknown>; labels: LabelFact[]; tag_ids: string[] }) => ({
    id: row.id,
    metadata: row.metadata,
    labels: row.labels,
    tagIds: row.tag_ids,
  }));
}

const tagged = (tagId: string, sign: 1 | -1, mediaIds: string[], versionId: string) =>
  sign > 0
    ? { sql: 'INSERT INTO media_tags (version_id, media_id, tag_id) SELECT ?, id, ? FROM unnest(?::uuid[]) AS ids(id) ON CONFLICT DO NOTHING RETURNING media_id', bindings: [versionId, tagId, mediaIds] }
    : { sql: 'DELETE FROM media_tags WHERE version_id = ? AND tag_id = ? AND media_id = ANY(?::uuid[]) RETURNING media_id', bindings: [versionId, tagId, mediaIds] };

/** Adds or takes back (`sign`) the labels, tags and metadata of `merges` on their keepers, keeping the tag and label counts right. */
async function writeMerges(trx: Knex.Transaction, versionId: string, merges: Array<Omit<KeeperMerge, 'conflicts'>>, sign: 1 | -1): Promise<void> {
  const labels = merges.flatMap((merge) => merge.labels.map((fact) => ({ media_id: merge.keeperId, ...fact })));
  if (labels.length > 0) {
    await forgetFacetCounts(trx, versionId, ['label']);
    const values = JSON.stringify(labels);
    await trx.raw(
      sign > 0
        ? `INSERT INTO media_labels (version_id, media_id, label, source, confidence)
             SELECT ?, media_id, label, source, confidence FROM jsonb_to_recordset(?::jsonb) AS l(media_id uuid, label text, source text, confidence float8)
           ON CONFLICT (version_id, media_id, label) DO NOTHING`
        : `DELETE FROM media_labels ml USING jsonb_to_recordset(?::jsonb) AS l(media_id uuid, label text, source text)
            WHERE ml.version_id = ? AND ml.media_id = l.media_id AND ml.label = l.label AND ml.source = l.source`,
      sign > 0 ? [versionId, values] : [values, versionId],
    );
  }
  const keepersOfTag = new Map<string, string[]>();
  for (const merge of merges) for (const tagId of merge.tagIds) keepersOfTag.set(tagId, [...(keepersOfTag.get(tagId) ?? []), merge.keeperId]);
  for (const [tagId, keepers] of keepersOfTag) await writeTagChange(trx, versionId, tagId, tagged(tagId, sign, keepers, versionId), sign);
  const patches = merges.filter((merge) => Object.keys(merge.metadata).length > 0).map((merge) => ({ id: merge.keeperId, patch: merge.metadata }));
  if (patches.length === 0) return;
  await trx.raw(
    sign > 0
      ? // The keeper's own values win (the right side of ||), should one have been written since the merge was planned.
        `UPDATE media m SET custom_metadata = p.patch || coalesce(m.custom_metadata, '{}'::jsonb)
           FROM jsonb_to_recordset(?::jsonb) AS p(id uuid, patch jsonb) WHERE m.version_id = ? AND m.id = p.id`
      : // A field is taken back only while it still holds the merged value.
        `UPDATE media m SET custom_metadata = m.custom_metadata - ARRAY(SELECT e.key FROM jsonb_each(p.patch) e WHERE m.custom_metadata->e.key = e.value)
           FROM jsonb_to_recordset(?::jsonb) AS p(id uuid, patch jsonb) WHERE m.version_id = ? AND m.id = p.id`,
    [JSON.stringify(patches), versionId],
  );
}

/** Adds what `merges` give their keepers (call it in the transaction that records their decisions). */
export function applyMerges(db: Db, versionId: string, merges: KeeperMerge[]): Promise<void> {
  return db.transaction((trx) => writeMerges(trx, versionId, merges, 1));
}

/**
 * Removes a decision or every decision of an Accept all (undo), taking back what they merged into their keepers;
 * the ids of the decisions removed (none when the version has no such decision or action).
 */
export function deleteDecisions(db: Db, versionId: string, by: { decisionId: string } | { actionId: string }): Promise<string[]> {
  return db.transaction((trx) => deleteDecisionsIn(trx, versionId, by));
}

async function deleteDecisionsIn(trx: Knex.Transaction, versionId: string, by: { decisionId: string } | { actionId: string }): Promise<string[]> {
  const where = 'decisionId' in by ? { version_id: versionId, decision_id: by.decisionId } : { version_id: versionId, action_id: by.actionId };
  const rows: Array<{ media_id: string; decision_id: string; merged: MergeRecord | null }> = await trx('duplicate_decisions').where(where).delete().returning(['media_id', 'decision_id', 'merged']);
  const merges = rows.filter((row) => row.merged).map((row) => ({ keeperId: row.media_id, labels: row.merged!.labels, tagIds: row.merged!.tagIds, metadata: row.merged!.metadata }));
  await writeMerges(trx, versionId, merges, -1);
  return [...new Set(rows.map((row) => row.decision_id))];
}
