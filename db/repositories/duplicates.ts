import type { Db } from '../connection';
import type { Candidate } from '../../lib/quality/duplicateKeeper';

/** One near-duplicate pair the analysis found: an image and its nearest copy at `similarity`. */
export interface DuplicateEdge {
  mediaId: string;
  duplicateOf: string;
  similarity: number;
}

export type DecisionRole = 'keep' | 'discard' | 'distinct';

export interface DecisionRow {
  mediaId: string;
  decisionId: string;
  role: DecisionRole;
  decidedAt: Date;
  decidedBy: string | null;
}

/** What the review shows of a member: its size, resolution, encoding, upload time and quality issues. */
export type DuplicateMemberRow = Candidate;

/** The version's image pairs at `similarity` or above (frames of videos are reviewed with their video elsewhere). */
export async function duplicateEdges(db: Db, versionId: string, similarity: number): Promise<DuplicateEdge[]> {
  const { rows } = await db.raw(
    `SELECT i.media_id, (i.details->>'duplicate_of')::uuid AS duplicate_of, (i.details->>'similarity')::float8 AS similarity
       FROM media_issues i
       JOIN media m ON m.version_id = i.version_id AND m.id = i.media_id AND m.kind = 'IMAGE'
       JOIN media o ON o.version_id = i.version_id AND o.id = (i.details->>'duplicate_of')::uuid AND o.kind = 'IMAGE'
      WHERE i.version_id = ? AND i.issue_type = 'duplicates' AND (i.details->>'similarity')::float8 >= ?`,
    [versionId, similarity],
  );
  return rows.map((row: { media_id: string; duplicate_of: string; similarity: number }) => ({
    mediaId: row.media_id,
    duplicateOf: row.duplicate_of,
    similarity: row.similarity,
  }));
}

export async function decisionsOf(db: Db, versionId: string): Promise<DecisionRow[]> {
  return db('duplicate_decisions')
    .where({ version_id: versionId })
    .select({ mediaId: 'media_id', decisionId: 'decision_id', role: 'role', decidedAt: 'decided_at', decidedBy: 'decided_by' });
}

export async function duplicateMembers(db: Db, versionId: string, mediaIds: string[]): Promise<DuplicateMemberRow[]> {
  const { rows } = await db.raw(
    `SELECT m.id, m.file_name, m.width, m.height, m.size_bytes, m.format, m.created_at,
            coalesce(array_agg(i.issue_type ORDER BY i.issue_type) FILTER (WHERE i.issue_type IS NOT NULL AND i.issue_type <> 'duplicates'), '{}') AS issues
       FROM media m
       LEFT JOIN media_issues i ON i.version_id = m.version_id AND i.media_id = m.id
      WHERE m.version_id = ? AND m.id = ANY(?::uuid[])
      GROUP BY m.id, m.file_name, m.width, m.height, m.size_bytes, m.format, m.created_at`,
    [versionId, mediaIds],
  );
  type Row = { id: string; file_name: string; width: number | null; height: number | null; size_bytes: string | null; format: string | null; created_at: Date; issues: string[] };
  return rows.map((row: Row) => ({
    id: row.id,
    fileName: row.file_name,
    width: row.width,
    height: row.height,
    sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
    format: row.format,
    createdAt: row.created_at,
    issues: row.issues,
  }));
}

/** The ids of `mediaIds` that are not images of the version. */
export async function unknownImageIds(db: Db, versionId: string, mediaIds: string[]): Promise<string[]> {
  const { rows } = await db.raw(
    `SELECT id FROM unnest(?::uuid[]) AS ids(id)
      WHERE NOT EXISTS (SELECT 1 FROM media m WHERE m.version_id = ? AND m.id = ids.id AND m.kind = 'IMAGE')`,
    [mediaIds, versionId],
  );
  return rows.map((row: { id: string }) => row.id);
}

export interface NewDecision {
  decisionId: string;
  members: Array<{ mediaId: string; role: DecisionRole }>;
}

/** Rows a batched insert sends at once (Postgres takes at most 65,535 parameters a statement). */
const INSERT_BATCH = 5000;

/**
 * Records decisions in one transaction; a member decided before is decided anew (its earlier row
 * replaced), so the latest decision about a media item is the one that holds.
 */
export async function recordDecisions(db: Db, versionId: string, userId: string, decisions: NewDecision[]): Promise<void> {
  const rows = decisions.flatMap((decision) =>
    decision.members.map((member) => ({ version_id: versionId, media_id: member.mediaId, decision_id: decision.decisionId, role: member.role, decided_by: userId })),
  );
  await db.transaction(async (trx) => {
    for (let start = 0; start < rows.length; start += INSERT_BATCH) {
      await trx('duplicate_decisions')
        .insert(rows.slice(start, start + INSERT_BATCH))
        .onConflict(['version_id', 'media_id'])
        .merge(['decision_id', 'role', 'decided_by', 'decided_at']);
    }
  });
}

/** Removes a decision (undo); false when the version has none with this id. */
export async function deleteDecision(db: Db, versionId: string, decisionId: string): Promise<boolean> {
  return (await db('duplicate_decisions').where({ version_id: versionId, decision_id: decisionId }).delete()) > 0;
}
