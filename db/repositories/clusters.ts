import type { Knex } from 'knex';
import type { Db } from '../connection';
import { forgetFacetCounts } from './clusterFacets';
import type { NeighbourScores } from '../../lib/quality/neighbourScores';

const INSERT_BATCH = 5000;

export interface NewCluster {
  id: string;
  threshold: number;
  n_images: number;
  n_frames: number;
  n_videos: number;
  size: number;
}

export interface ClusterMembership {
  threshold: number;
  media_id: string;
  cluster_id: string;
}

/** Inserts `rows` a batch at a time, each row with `version_id` added as its batch is sent (not a copy of them all at once). */
export async function insertInBatches(db: Db, table: string, rows: object[], versionId?: string): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    const batch = rows.slice(i, i + INSERT_BATCH);
    await db(table).insert(versionId === undefined ? batch : batch.map((row) => ({ ...row, version_id: versionId })));
  }
}

/**
 * Removes a version's whole clustering: the start of a replacement written part by part (insertClustering). It locks
 * the version first, so two attempts of one analysis (a retry while a slow first attempt still runs) replace it one
 * after the other instead of colliding on memberships.
 */
export async function clearClustering(db: Knex.Transaction, versionId: string): Promise<void> {
  await db('dataset_versions').where({ id: versionId }).forUpdate().select('id');
  await forgetFacetCounts(db, versionId);
  // Memberships no longer go with their clusters by a foreign key (20261127300000): remove them first.
  await db('cluster_members').where({ version_id: versionId }).delete();
  await db('clusters').where({ version_id: versionId }).delete();
}

/** Adds clusters and memberships as they are (no recount: the rows carry their final counts). */
export async function insertClustering(db: Knex.Transaction, versionId: string, clusters: NewCluster[], members: ClusterMembership[]): Promise<void> {
  await insertInBatches(db, 'clusters', clusters, versionId);
  await insertInBatches(db, 'cluster_members', members, versionId);
}

/** Adds placed media (and the new clusters some of them opened), then recounts every touched cluster. */
export async function addPlacements(db: Knex.Transaction, versionId: string, clusters: NewCluster[], members: ClusterMembership[]): Promise<void> {
  await forgetFacetCounts(db, versionId);
  await insertClustering(db, versionId, clusters, members);
  await recountClusters(db, versionId, [...new Set(members.map((member) => member.cluster_id))]);
}

/** Recounts the members of clusters, so stored sizes always match cluster_members. */
async function recountClusters(db: Knex.Transaction, versionId: string, clusterIds: string[]): Promise<void> {
  for (let i = 0; i < clusterIds.length; i += INSERT_BATCH) {
    await db.raw(
      `UPDATE clusters c SET n_images = s.n_images, n_frames = s.n_frames, n_videos = s.n_videos, size = s.size
       FROM (SELECT cm.cluster_id,
                    count(*) FILTER (WHERE m.kind = 'IMAGE')::int AS n_images,
                    count(*) FILTER (WHERE m.kind = 'VIDEO_FRAME')::int AS n_frames,
                    count(DISTINCT m.parent_id)::int AS n_videos,
                    count(*)::int AS size
             FROM cluster_members cm JOIN media m ON m.version_id = cm.version_id AND m.id = cm.media_id
             WHERE cm.version_id = ? AND cm.cluster_id = ANY(?::uuid[]) GROUP BY cm.cluster_id) s
       WHERE c.version_id = ? AND c.id = s.cluster_id`,
      [versionId, clusterIds.slice(i, i + INSERT_BATCH), versionId],
    );
  }
}

/** The cluster of each of `mediaIds` at every threshold. */
export async function clusterMemberships(db: Db, versionId: string, mediaIds: string[]): Promise<ClusterMembership[]> {
  return db('cluster_members')
    .where({ version_id: versionId })
    .whereRaw('media_id = ANY(?::uuid[])', [mediaIds])
    .select('media_id', 'threshold', 'cluster_id');
}

/** Writes the neighbour-based issues (duplicates, outliers) and uniqueness of scored items, replacing earlier ones. */
export async function writeNeighbourScores(db: Knex.Transaction, versionId: string, scored: Array<{ id: string; score: NeighbourScores }>) {
  await forgetFacetCounts(db, versionId);
  await db('media_issues')
    .where({ version_id: versionId })
    .whereRaw('media_id = ANY(?::uuid[])', [scored.map(({ id }) => id)])
    .whereIn('issue_type', ['duplicates', 'outliers'])
    .delete();
  const issueRows = scored.flatMap(({ id, score }) =>
    score.issues.map((issue) => ({
      version_id: versionId,
      media_id: id,
      issue_type: issue.type,
      confidence: issue.confidence,
      details: issue.details ? JSON.stringify(issue.details) : null,
    })),
  );
  await insertInBatches(db, 'media_issues', issueRows);
  for (let i = 0; i < scored.length; i += INSERT_BATCH) {
    const slice = scored.slice(i, i + INSERT_BATCH);
    await db.raw(
      `UPDATE media SET uniqueness_score = v.score
       FROM (SELECT unnest(?::uuid[]) AS id, unnest(?::real[]) AS score) v WHERE media.version_id = ? AND media.id = v.id`,
      [slice.map(({ id }) => id), slice.map(({ score }) => score.uniqueness), versionId],
    );
  }
}

/** A version's memberships at one threshold (media id, cluster id): what an incremental re-clustering compares with. */
export async function membershipsAt(db: Db, versionId: string, threshold: number): Promise<Array<{ media_id: string; cluster_id: string }>> {
  return db('cluster_members').where({ version_id: versionId, threshold }).select('media_id', 'cluster_id');
}

/** Removes clusters of a version and their memberships, and locks the version first, as clearClustering does. */
export async function removeClusters(db: Knex.Transaction, versionId: string, clusterIds: readonly string[]): Promise<void> {
  await db('dataset_versions').where({ id: versionId }).forUpdate().select('id');
  await forgetFacetCounts(db, versionId);
  for (let i = 0; i < clusterIds.length; i += INSERT_BATCH) {
    const batch = clusterIds.slice(i, i + INSERT_BATCH);
    // Memberships no longer go with their clusters by a foreign key (20261127300000): remove them first.
    await db('cluster_members').where({ version_id: versionId }).whereRaw('cluster_id = ANY(?::uuid[])', [batch]).delete();
    await db('clusters').where({ version_id: versionId }).whereRaw('id = ANY(?::uuid[])', [batch]).delete();
  }
}

/** The stored neighbour scores of a version: each scored item's uniqueness and its duplicate and outlier issues. */
export async function storedNeighbourScores(db: Db, versionId: string) {
  const uniqueness: Array<{ id: string; uniqueness_score: number }> = await db('media')
    .where({ version_id: versionId })
    .whereNotNull('uniqueness_score')
    .select('id', 'uniqueness_score');
  const issues: Array<{ media_id: string; issue_type: string; confidence: number; details: Record<string, unknown> | null }> = await db('media_issues')
    .where({ version_id: versionId })
    .whereIn('issue_type', ['duplicates', 'outliers'])
    .select('media_id', 'issue_type', 'confidence', 'details');
  return { uniqueness, issues };
}
