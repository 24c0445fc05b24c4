import type { Knex } from 'knex';
import type { Db } from '../connection';
import { clusteringOf } from './clusteringOf';
import { forgetFacetCounts } from './clusterFacets';
import { MOST_UNIQUE_FIRST, PREVIEWS_PER_CLUSTER } from './previews';
import { CLUSTER_SIMILARITY_CUTOFFS } from '../../lib/clustering/clusterByThresholds';
import type { NeighbourScores } from '../../lib/quality/neighbourScores';

const INSERT_BATCH = 5000;
/** Ids a read asks for at a time. */
const READ_BATCH = 50_000;

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

/** Inserts `rows` a batch at a time, each row with `key` (e.g. its `version_id`) added as its batch is sent (not a copy of them all at once). */
export async function insertInBatches(db: Db, table: string, rows: object[], key?: Record<string, string>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    const batch = rows.slice(i, i + INSERT_BATCH);
    await db(table).insert(key === undefined ? batch : batch.map((row) => ({ ...row, ...key })));
  }
}

/** Whether a version other than `versionId` reads the clustering `clusteringId`. */
async function sharedWithOthers(db: Db, clusteringId: string, versionId: string): Promise<boolean> {
  return Boolean(await db('dataset_versions').where({ clustering_id: clusteringId }).whereNot({ id: versionId }).first('id'));
}

/** Locks the version row (writers of one version's clustering go one after the other) and returns its clustering id. */
async function lockedClustering(db: Knex.Transaction, versionId: string): Promise<string> {
  const version = await db('dataset_versions').where({ id: versionId }).forUpdate().first('clustering_id');
  if (!version) throw new Error(`version ${versionId} does not exist`);
  return version.clustering_id;
}

/** Columns of a clustering table but its key column, for copying its rows. */
async function clusteringColumns(db: Db, table: 'clusters' | 'cluster_members'): Promise<string> {
  const rows: Array<{ column_name: string }> = await db('information_schema.columns')
    .where({ table_schema: db.raw('current_schema()'), table_name: table, is_generated: 'NEVER' })
    .whereNot('column_name', 'clustering_id')
    .orderBy('ordinal_position')
    .select('column_name');
  return rows.map((row) => `"${row.column_name}"`).join(', ');
}

/**
 * The clustering of `versionId` that no other version reads, ready to be changed in place: when a copy
 * shares it, the version gets a copy of its rows first (copy-on-write, the only place clustering
 * rows are copied). Run it in the transaction that then changes the clustering.
 */
export async function ownClustering(db: Knex.Transaction, versionId: string): Promise<string> {
  const clusteringId = await lockedClustering(db, versionId);
  if (!(await sharedWithOthers(db, clusteringId, versionId))) return clusteringId;
  const [{ id: ownId }] = (await db.raw('SELECT gen_random_uuid() AS id')).rows;
  for (const table of ['clusters', 'cluster_members'] as const) {
    const columns = await clusteringColumns(db, table);
    await db.raw(`INSERT INTO ${table} (clustering_id, ${columns}) SELECT ?, ${columns} FROM ${table} WHERE clustering_id = ?`, [ownId, clusteringId]);
  }
  await db('dataset_versions').where({ id: versionId }).update({ clustering_id: ownId });
  return ownId;
}

/**
 * Empties a version's clustering: the start of a replacement written part by part (insertClustering);
 * returns the clustering id to write into. A clustering a copy shares stays as it is for the copy and
 * the version gets a new, empty one. It locks the version first, so two attempts of one analysis (a
 * retry while a slow first attempt still runs) replace it one after the other instead of colliding on memberships.
 */
export async function clearClustering(db: Knex.Transaction, versionId: string): Promise<string> {
  const clusteringId = await lockedClustering(db, versionId);
  await forgetFacetCounts(db, versionId);
  if (await sharedWithOthers(db, clusteringId, versionId)) {
    const [{ id: newId }] = await db('dataset_versions').where({ id: versionId }).update({ clustering_id: db.raw('gen_random_uuid()') }, ['clustering_id as id']);
    return newId;
  }
  await deleteClusteringRows(db, [clusteringId]);
  return clusteringId;
}

async function deleteClusteringRows(db: Db, clusteringIds: string[]): Promise<void> {
  // Memberships do not go with their clusters by a foreign key (20261127300000): remove them first.
  await db('cluster_members').whereIn('clustering_id', clusteringIds).delete();
  await db('clusters').whereIn('clustering_id', clusteringIds).delete();
}

/**
 * Removes the rows of those of `clusteringIds` that no version reads any more: call it in the
 * transaction that deletes the versions that read them (the ids read before the deletion).
 */
export async function releaseClusterings(db: Db, clusteringIds: string[]): Promise<void> {
  const referenced: string[] = await db('dataset_versions').whereIn('clustering_id', clusteringIds).distinct().pluck('clustering_id');
  const unreferenced = clusteringIds.filter((id) => !referenced.includes(id));
  if (unreferenced.length > 0) await deleteClusteringRows(db, unreferenced);
}

/**
 * Adds clusters and memberships as they are (no recount: the rows carry their final counts) to the clustering
 * `clusteringId`; a membership of an item the level already holds moves it (a re-clustering's). Into a clustering
 * emptied first (`'empty'`, a whole analysis's) memberships are plain inserts: checking each for a conflict made
 * 500,000 of them take 9.3-11.2 s instead of 7.0-7.5 s.
 */
export async function insertClustering(
  db: Knex.Transaction,
  clusteringId: string,
  clusters: NewCluster[],
  members: ClusterMembership[],
  into: 'empty' | 'existing' = 'existing',
): Promise<void> {
  // A statement of parallel arrays per batch: Postgres parses one short statement instead of thousands of bound values
  // (an analysis of 1,000,000 media writes five million memberships).
  for (let i = 0; i < clusters.length; i += INSERT_BATCH) {
    const batch = clusters.slice(i, i + INSERT_BATCH);
    await db.raw(
      `INSERT INTO clusters (clustering_id, id, threshold, n_images, n_frames, n_videos, size)
       SELECT ?, unnest(?::uuid[]), unnest(?::smallint[]), unnest(?::int[]), unnest(?::int[]), unnest(?::int[]), unnest(?::int[])`,
      [
        clusteringId,
        batch.map((cluster) => cluster.id),
        ...(['threshold', 'n_images', 'n_frames', 'n_videos', 'size'] as const).map((column) => batch.map((cluster) => cluster[column])),
      ],
    );
  }
  for (let i = 0; i < members.length; i += INSERT_BATCH) {
    const batch = members.slice(i, i + INSERT_BATCH);
    await db.raw(
      `INSERT INTO cluster_members (clustering_id, threshold, media_id, cluster_id)
       SELECT ?, unnest(?::smallint[]), unnest(?::uuid[]), unnest(?::uuid[])
       ${into === 'existing' ? 'ON CONFLICT (clustering_id, threshold, media_id) DO UPDATE SET cluster_id = excluded.cluster_id' : ''}`,
      [clusteringId, batch.map((member) => member.threshold), batch.map((member) => member.media_id), batch.map((member) => member.cluster_id)],
    );
  }
}

/** Sets the counts of existing clusters of a clustering (a re-clustering's clusters kept with other members). */
export async function updateClusterCounts(db: Knex.Transaction, clusteringId: string, clusters: NewCluster[]): Promise<void> {
  for (let i = 0; i < clusters.length; i += INSERT_BATCH) {
    const batch = clusters.slice(i, i + INSERT_BATCH);
    await db.raw(
      `UPDATE clusters c SET n_images = v.n_images, n_frames = v.n_frames, n_videos = v.n_videos, size = v.size
       FROM (SELECT unnest(?::uuid[]) AS id, unnest(?::int[]) AS n_images, unnest(?::int[]) AS n_frames, unnest(?::int[]) AS n_videos, unnest(?::int[]) AS size) v
       WHERE c.clustering_id = ? AND c.id = v.id`,
      [
        batch.map((cluster) => cluster.id),
        ...(['n_images', 'n_frames', 'n_videos', 'size'] as const).map((column) => batch.map((cluster) => cluster[column])),
        clusteringId,
      ],
    );
  }
}

/** Adds placed media (and the new clusters some of them opened), then recounts every touched cluster; returns the clustering written. */
export async function addPlacements(db: Knex.Transaction, versionId: string, clusters: NewCluster[], members: ClusterMembership[]): Promise<string> {
  const clusteringId = await ownClustering(db, versionId);
  await forgetFacetCounts(db, versionId);
  await insertClustering(db, clusteringId, clusters, members);
  await recountClusters(db, versionId, clusteringId, [...new Set(members.map((member) => member.cluster_id))]);
  return clusteringId;
}

/** Recounts the members of clusters, so stored sizes always match cluster_members. */
async function recountClusters(db: Knex.Transaction, versionId: string, clusteringId: string, clusterIds: string[]): Promise<void> {
  for (let i = 0; i < clusterIds.length; i += INSERT_BATCH) {
    await db.raw(
      `UPDATE clusters c SET n_images = s.n_images, n_frames = s.n_frames, n_videos = s.n_videos, size = s.size
       FROM (SELECT cm.cluster_id,
                    count(*) FILTER (WHERE m.kind = 'IMAGE')::int AS n_images,
                    count(*) FILTER (WHERE m.kind = 'VIDEO_FRAME')::int AS n_frames,
                    count(DISTINCT m.parent_id)::int AS n_videos,
                    count(*)::int AS size
             FROM cluster_members cm JOIN media m ON m.version_id = ? AND m.id = cm.media_id
             WHERE cm.clustering_id = ? AND cm.cluster_id = ANY(?::uuid[]) GROUP BY cm.cluster_id) s
       WHERE c.clustering_id = ? AND c.id = s.cluster_id`,
      [versionId, clusteringId, clusterIds.slice(i, i + INSERT_BATCH), clusteringId],
    );
  }
}

/**
 * The SQL choosing the previews of a clustering's clusters among `candidates` (SQL of rows `cluster_id, id`: a
 * cluster's members, or those of them that can be previews), as a page without filters shows them: up to
 * PREVIEWS_PER_CLUSTER each, most unique first (ties by id), read from the media rows of the version `:version`.
 */
const previewsAmong = (candidates: string) => `UPDATE clusters c SET previews = p.ids
  FROM (SELECT cluster_id, array_agg(id ORDER BY rank) AS ids
        FROM (SELECT k.cluster_id, m.id, row_number() OVER (PARTITION BY k.cluster_id ORDER BY ${MOST_UNIQUE_FIRST}) AS rank
              FROM (${candidates}) k JOIN media m ON m.version_id = :version AND m.id = k.id) ranked
        WHERE rank <= ${PREVIEWS_PER_CLUSTER} GROUP BY cluster_id) p
  WHERE c.clustering_id = :clustering AND c.id = p.cluster_id AND c.previews IS DISTINCT FROM p.ids`;

/** previewsAmong every member of the clusters `scope` narrows (or of all). */
const previewsOf = (scope: string) => previewsAmong(`SELECT cm.cluster_id, cm.media_id AS id FROM cluster_members cm WHERE cm.clustering_id = :clustering ${scope}`);

/**
 * The SQL keeping in each cluster `scope` narrows (or every cluster of the clustering `:clustering`) its members'
 * uniqueness scores, negated and ascending, without NULLs, from the media rows of the version `:version`:
 * `width_bucket(-x, negated_uniqueness)` counts its members with uniqueness ≥ x (explore.ts uniquenessCandidates).
 */
const negatedUniquenessOf = (scope: string) => `UPDATE clusters c SET negated_uniqueness = s.scores
  FROM (SELECT cm.cluster_id,
               coalesce(array_agg(-m.uniqueness_score ORDER BY m.uniqueness_score DESC) FILTER (WHERE m.uniqueness_score IS NOT NULL), '{}') AS scores
        FROM cluster_members cm JOIN media m ON m.version_id = :version AND m.id = cm.media_id
        WHERE cm.clustering_id = :clustering ${scope} GROUP BY cm.cluster_id) s
  WHERE c.clustering_id = :clustering AND c.id = s.cluster_id AND c.negated_uniqueness IS DISTINCT FROM s.scores`;

/** Each media row's clusters at every threshold, from the memberships (the rows `scope` narrows, or all). */
const clustersOfMedia = (scope: string) => `SELECT m.id,
         CASE WHEN count(cm.media_id) > 0
              THEN ARRAY[${[...CLUSTER_SIMILARITY_CUTOFFS.keys()].map((t) => `(array_agg(cm.cluster_id) FILTER (WHERE cm.threshold = ${t}))[1]`).join(', ')}] END AS ids
  FROM media m LEFT JOIN cluster_members cm ON cm.clustering_id = :clustering AND cm.media_id = m.id
  WHERE m.version_id = :version ${scope} GROUP BY m.id`;

/** The transaction's table of a whole analysis's uniqueness scores, until refreshExploreCopies('all') writes them. */
const STAGED_UNIQUENESS = 'pg_temp.analysis_uniqueness';

async function ensureStagedUniqueness(db: Db): Promise<void> {
  await db.raw('CREATE TEMP TABLE IF NOT EXISTS analysis_uniqueness (id uuid NOT NULL, score real) ON COMMIT DROP');
}

/**
 * The SQL setting the clusters of media rows of the version `:version` from the memberships of its clustering
 * `:clustering` (`cluster_ids[threshold + 1]`, NULL for media without any); `scope` narrows the media (or is empty).
 */
const mediaClustersOf = (scope: string) => `UPDATE media m SET cluster_ids = c.ids
  FROM (${clustersOfMedia(scope)}) c
  WHERE m.version_id = :version AND m.id = c.id AND m.cluster_ids IS DISTINCT FROM c.ids`;

/** mediaClustersOf every media row of the version, with the uniqueness a whole analysis staged (stageNeighbourScores) in the same rewrite. */
const mediaClustersAndStagedUniqueness = `UPDATE media m
  SET cluster_ids = c.ids, uniqueness_score = CASE WHEN s.id IS NULL THEN m.uniqueness_score ELSE s.score END
  FROM (${clustersOfMedia('')}) c LEFT JOIN ${STAGED_UNIQUENESS} s ON s.id = c.id
  WHERE m.version_id = :version AND m.id = c.id
    AND (m.cluster_ids IS DISTINCT FROM c.ids OR (s.id IS NOT NULL AND m.uniqueness_score IS DISTINCT FROM s.score))`;

/**
 * The SQL choosing again the previews of the clusters `:clusters` and of those holding `:rescored` media (whose
 * uniqueness changed), where the `:dirty` media (those, and the media whose memberships were written) may rank
 * differently. A cluster none of whose stored previews is dirty ranks only its previews and its dirty members: every
 * other member kept its uniqueness and its place below the previews, so the ten first are among those. Any other
 * cluster (or one without previews yet) ranks all its members.
 */
const previewsAround = `WITH target AS (
    SELECT c.id, c.previews,
           c.previews IS NULL OR EXISTS (SELECT 1 FROM unnest(c.previews) AS p(id) WHERE p.id IN (SELECT unnest(:dirty::uuid[]))) AS whole
    FROM clusters c
    WHERE c.clustering_id = :clustering
      AND c.id IN (SELECT unnest(:clusters::uuid[])
                   UNION SELECT cluster_id FROM cluster_members WHERE clustering_id = :clustering AND media_id = ANY(:rescored::uuid[]))),
  candidates AS (
    SELECT cm.cluster_id, cm.media_id AS id FROM target t JOIN cluster_members cm ON cm.clustering_id = :clustering AND cm.cluster_id = t.id WHERE t.whole
    UNION
    SELECT t.id, p.id FROM target t CROSS JOIN LATERAL unnest(t.previews) AS p(id) WHERE NOT t.whole
    UNION
    SELECT cm.cluster_id, cm.media_id FROM cluster_members cm JOIN target t ON t.id = cm.cluster_id AND NOT t.whole
    WHERE cm.clustering_id = :clustering AND cm.media_id = ANY(:dirty::uuid[]))
  ${previewsAmong('SELECT cluster_id, id FROM candidates')}`;

/**
 * Makes the copies Explore reads of the clustering `clusteringId` (read by `versionId`) agree with its memberships
 * again, where members or their uniqueness changed: every cluster and media row (`'all'`, after a whole analysis),
 * or the previews of the clusters given and of those holding the media given (`mediaIds`: whose uniqueness changed),
 * and the rows of the media whose memberships were written (`movedMediaIds`: new, or moved to another cluster). Each
 * cluster keeps its previews, so a plain Explore page reads 10 media per cluster, not every member of its clusters (at
 * 1,000,000 media the first page's clusters held 105,502); each media row keeps its clusters, so a ranked page reads
 * its hits' clusters from the caption and concept keys' indexes, without joining the hits to their memberships; each
 * cluster keeps its members' uniqueness scores, so a page filtered by uniqueness counts a cluster's passing members
 * from its row.
 */
export async function refreshExploreCopies(
  db: Db,
  versionId: string,
  clusteringId: string,
  changed: 'all' | { clusterIds: Iterable<string>; mediaIds: Iterable<string>; movedMediaIds: Iterable<string> },
): Promise<void> {
  if (changed === 'all') {
    await db.transaction(async (trx) => {
      // Every membership is read: joined by hashing, whatever the statistics say. Right after a first indexing they
      // may still describe empty tables, and the planner then read all the version's media again for each member
      // (past the API's 15 s statement timeout at 40,000 media, where hashing takes about 2 s).
      await trx.raw('SET LOCAL enable_nestloop = off');
      // The media rows first: the previews and the clusters' scores read the uniqueness staged for them.
      await ensureStagedUniqueness(trx);
      await trx.raw(mediaClustersAndStagedUniqueness, { version: versionId, clustering: clusteringId });
      // A level at a time: each statement sorts a fifth of the memberships (5,000,000 at 1,000,000 media).
      for (const threshold of CLUSTER_SIMILARITY_CUTOFFS.keys()) {
        await trx.raw(previewsOf('AND cm.threshold = :threshold'), { version: versionId, clustering: clusteringId, threshold });
        await trx.raw(negatedUniquenessOf('AND cm.threshold = :threshold'), { version: versionId, clustering: clusteringId, threshold });
      }
      await trx.raw('SET LOCAL enable_nestloop TO DEFAULT');
    });
    return;
  }
  const clusterIds = [...new Set(changed.clusterIds)];
  const rescored = [...new Set(changed.mediaIds)];
  const moved = [...new Set(changed.movedMediaIds)];
  const dirty = [...new Set([...rescored, ...moved])];
  for (let i = 0; i < Math.max(clusterIds.length, rescored.length); i += INSERT_BATCH) {
    const batch = { version: versionId, clustering: clusteringId, clusters: clusterIds.slice(i, i + INSERT_BATCH), rescored: rescored.slice(i, i + INSERT_BATCH) };
    await db.raw(previewsAround, { ...batch, dirty });
    // Unlike the previews, the scores are every member's: the clusters' members are all read (as their sizes were recounted).
    await db.raw(
      negatedUniquenessOf(`AND cm.cluster_id IN (SELECT unnest(:clusters::uuid[])
                             UNION SELECT cluster_id FROM cluster_members WHERE clustering_id = :clustering AND media_id = ANY(:rescored::uuid[]))`),
      batch,
    );
  }
  for (let i = 0; i < moved.length; i += INSERT_BATCH) {
    await db.raw(mediaClustersOf('AND m.id = ANY(:media::uuid[])'), { version: versionId, clustering: clusteringId, media: moved.slice(i, i + INSERT_BATCH) });
  }
}

/** The cluster of each of `mediaIds` at every threshold. */
export async function clusterMemberships(db: Db, versionId: string, mediaIds: string[]): Promise<ClusterMembership[]> {
  return db('cluster_members')
    .where('clustering_id', clusteringOf(db, versionId))
    .whereRaw('media_id = ANY(?::uuid[])', [mediaIds])
    .select('media_id', 'threshold', 'cluster_id');
}

/** Replaces the neighbour-based issues (duplicates, similar, outliers) of scored items with those they scored now. */
async function writeNeighbourIssues(db: Knex.Transaction, versionId: string, scored: Array<{ id: string; score: NeighbourScores }>): Promise<void> {
  await forgetFacetCounts(db, versionId);
  await db('media_issues')
    .where({ version_id: versionId })
    .whereRaw('media_id = ANY(?::uuid[])', [scored.map(({ id }) => id)])
    .whereIn('issue_type', ['duplicates', 'similar', 'outliers'])
    .delete();
  const issues = scored.flatMap(({ id, score }) => score.issues.map((issue) => ({ id, ...issue })));
  for (let i = 0; i < issues.length; i += INSERT_BATCH) {
    const batch = issues.slice(i, i + INSERT_BATCH);
    await db.raw(
      `INSERT INTO media_issues (version_id, media_id, issue_type, confidence, details)
       SELECT ?, unnest(?::uuid[]), unnest(?::text[]), unnest(?::real[]), nullif(unnest(?::jsonb[]), 'null')`,
      [
        versionId,
        batch.map((issue) => issue.id),
        batch.map((issue) => issue.type),
        batch.map((issue) => issue.confidence),
        batch.map((issue) => JSON.stringify(issue.details ?? null)),
      ],
    );
  }
}

/**
 * A whole analysis's writeNeighbourScores: the issues written, the uniqueness staged in the transaction for
 * refreshExploreCopies('all'), which writes it in the same rewrite of every media row as their clusters (two
 * rewrites of 100,000 rows took 7.5 s for the uniqueness, 8.4 s for the clusters).
 */
export async function stageNeighbourScores(db: Knex.Transaction, versionId: string, scored: Array<{ id: string; score: NeighbourScores }>): Promise<void> {
  await writeNeighbourIssues(db, versionId, scored);
  await ensureStagedUniqueness(db);
  for (let i = 0; i < scored.length; i += INSERT_BATCH) {
    const slice = scored.slice(i, i + INSERT_BATCH);
    await db.raw(`INSERT INTO ${STAGED_UNIQUENESS} (id, score) SELECT unnest(?::uuid[]), unnest(?::real[])`, [
      slice.map(({ id }) => id),
      slice.map(({ score }) => score.uniqueness),
    ]);
  }
}

/**
 * Writes the neighbour-based issues (duplicates, outliers) and uniqueness of scored items, replacing earlier ones
 * (a `similar` pair too: its tier is decided anew, services/duplicateTiers.ts);
 * returns the media whose uniqueness changed (the rows of the others are left as they are).
 */
export async function writeNeighbourScores(db: Knex.Transaction, versionId: string, scored: Array<{ id: string; score: NeighbourScores }>): Promise<string[]> {
  await writeNeighbourIssues(db, versionId, scored);
  const rescored: string[] = [];
  for (let i = 0; i < scored.length; i += INSERT_BATCH) {
    const slice = scored.slice(i, i + INSERT_BATCH);
    const { rows } = await db.raw(
      `UPDATE media SET uniqueness_score = v.score
       FROM (SELECT unnest(?::uuid[]) AS id, unnest(?::real[]) AS score) v
       WHERE media.version_id = ? AND media.id = v.id AND media.uniqueness_score IS DISTINCT FROM v.score
       RETURNING media.id`,
      [slice.map(({ id }) => id), slice.map(({ score }) => score.uniqueness), versionId],
    );
    for (const row of rows as Array<{ id: string }>) rescored.push(row.id);
  }
  return rescored;
}

/**
 * A version's memberships at one threshold (media id, cluster id), of the given media or clusters: what an incremental
 * re-clustering compares with.
 */
export async function membershipsAt(
  db: Db,
  versionId: string,
  threshold: number,
  of: { column: 'media_id' | 'cluster_id'; ids: readonly string[] },
): Promise<Array<{ media_id: string; cluster_id: string }>> {
  const rows: Array<{ media_id: string; cluster_id: string }> = [];
  for (let i = 0; i < of.ids.length; i += READ_BATCH) {
    const batch = of.ids.slice(i, i + READ_BATCH);
    const found = await db('cluster_members').where('clustering_id', clusteringOf(db, versionId)).where({ threshold }).whereRaw(`${of.column} = ANY(?::uuid[])`, [batch]).select('media_id', 'cluster_id');
    for (const row of found) rows.push(row);
  }
  return rows;
}

/**
 * Removes clusters of a version with their memberships, in a clustering no other version reads (ownClustering, which
 * locks the version first, as clearClustering does); returns that clustering's id, for the rows written next.
 */
export async function removeClusters(db: Knex.Transaction, versionId: string, clusterIds: readonly string[]): Promise<string> {
  const clusteringId = await ownClustering(db, versionId);
  await forgetFacetCounts(db, versionId);
  for (let i = 0; i < clusterIds.length; i += INSERT_BATCH) {
    const batch = clusterIds.slice(i, i + INSERT_BATCH);
    await db('cluster_members').where({ clustering_id: clusteringId }).whereRaw('cluster_id = ANY(?::uuid[])', [batch]).delete();
    await db('clusters').where({ clustering_id: clusteringId }).whereRaw('id = ANY(?::uuid[])', [batch]).delete();
  }
  return clusteringId;
}

