import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/connection';
import type { ObjectStore } from '../../lib/storage/objectStore';
import type { VectorStore } from '../../lib/vectors/vectorStore';
import { clusteringOf } from '../../db/repositories/clusteringOf';
import { CLUSTER_SIMILARITY_CUTOFFS } from '../../lib/clustering/clusterByThresholds';
import { analyzeDataset } from '../../services/singlePassAnalysis';
import { unattended } from '../../services/taskLiveness';

/**
 * What an analysis wrote to a version, free of the random cluster ids: each threshold's clusters as their sorted
 * member ids with their counts and stored previews, every item's uniqueness, the duplicate and outlier issues, the
 * outlier reference and the map points.
 */
export async function analysisOf(db: Db, versionId: string) {
  const clusters: Array<{ id: string; threshold: number; n_images: number; n_frames: number; n_videos: number; size: number; previews: string[] | null }> = await db('clusters')
    .where({ clustering_id: clusteringOf(db, versionId) })
    .select('id', 'threshold', 'n_images', 'n_frames', 'n_videos', 'size', 'previews');
  const members: Array<{ cluster_id: string; media_id: string }> = await db('cluster_members').where({ clustering_id: clusteringOf(db, versionId) }).select('cluster_id', 'media_id');
  const membersOf = new Map<string, string[]>();
  for (const member of members) membersOf.set(member.cluster_id, [...(membersOf.get(member.cluster_id) ?? []), member.media_id]);
  const levels = [0, 1, 2, 3, 4].map((threshold) =>
    clusters
      .filter((cluster) => cluster.threshold === threshold)
      .map(({ id, n_images, n_frames, n_videos, size, previews }) => ({ members: (membersOf.get(id) ?? []).sort(), n_images, n_frames, n_videos, size, previews }))
      .sort((x, y) => x.members[0].localeCompare(y.members[0])),
  );
  return {
    levels,
    uniqueness: await db('media').where({ version_id: versionId }).whereNotNull('uniqueness_score').orderBy('id').select('id', 'uniqueness_score'),
    /** Frames that repeat an earlier frame of their video (lib/quality/repeatedFrames.ts). */
    repeats: (await db('media').where({ version_id: versionId }).whereNotNull('repeat_of_frame').orderBy('id').pluck('id')) as string[],
    issues: await db('media_issues')
      .where({ version_id: versionId })
      .whereIn('issue_type', ['duplicates', 'outliers'])
      .orderBy(['media_id', 'issue_type'])
      .select('media_id', 'issue_type', 'confidence', 'details'),
    neighbourStats: (await db('dataset_versions').where({ id: versionId }).first('neighbour_stats')).neighbour_stats,
    mapPoints: await db('map_points').where({ version_id: versionId }).orderBy('point_index').select('media_id', 'point_index', 'x', 'y'),
  };
}

/**
 * The previews each cluster of `analysis` should keep, ranked here from its members and their uniqueness: the 10 most
 * unique first (ties by id; an item without a score last), a repeated video frame after every other member, as
 * Explore shows them without filters.
 */
export function previewsRankedFromMembers(analysis: Pick<Awaited<ReturnType<typeof analysisOf>>, 'levels' | 'uniqueness' | 'repeats'>): string[][][] {
  const uniqueness = new Map<string, number>(analysis.uniqueness.map((row: { id: string; uniqueness_score: number }) => [row.id, row.uniqueness_score]));
  const score = (id: string) => uniqueness.get(id) ?? -Infinity;
  const repeated = new Set(analysis.repeats);
  const repeat = (id: string) => (repeated.has(id) ? 1 : 0);
  return analysis.levels.map((clusters) =>
    clusters.map((cluster) => [...cluster.members].sort((a, b) => repeat(a) - repeat(b) || score(b) - score(a) || (a < b ? -1 : 1)).slice(0, 10)),
  );
}

/**
 * The media rows of a version whose kept clusters (`cluster_ids`, one per threshold) differ from their memberships in
 * the version's clustering (NULL for media without any), as `{ id, kept, memberships }`; empty when every row agrees.
 */
export async function mediaClustersOutOfStep(db: Db, versionId: string): Promise<Array<{ id: string; kept: Array<string | null> | null; memberships: Array<string | null> | null }>> {
  const members: Array<{ media_id: string; threshold: number; cluster_id: string }> = await db('cluster_members')
    .where({ clustering_id: clusteringOf(db, versionId) })
    .select('media_id', 'threshold', 'cluster_id');
  const membershipsOf = new Map<string, Array<string | null>>();
  for (const member of members) {
    const clusters = membershipsOf.get(member.media_id) ?? CLUSTER_SIMILARITY_CUTOFFS.map(() => null);
    clusters[member.threshold] = member.cluster_id;
    membershipsOf.set(member.media_id, clusters);
  }
  const rows: Array<{ id: string; cluster_ids: Array<string | null> | null }> = await db('media').where({ version_id: versionId }).select('id', 'cluster_ids');
  return rows
    .map((row) => ({ id: row.id, kept: row.cluster_ids, memberships: membershipsOf.get(row.id) ?? null }))
    .filter((row) => JSON.stringify(row.kept) !== JSON.stringify(row.memberships));
}

/** Runs the one-pass analysis (services/singlePassAnalysis) of the dataset's head, as the reference the fan-out must equal. */
export async function analyzeInOnePass(db: Db, vectors: VectorStore, datasetId: string, store: ObjectStore): Promise<void> {
  // With the store, as the worker runs it: duplicate pairs get their tiers from the thumbnails.
  await analyzeDataset({ db, vectors, store }, unattended, { datasetId, taskId: randomUUID() });
}
