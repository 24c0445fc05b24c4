import type { Knex } from 'knex';
import type { Db } from '../connection';
import { CLUSTERING_OF } from './clusteringOf';
import { CLUSTER_SIMILARITY_CUTOFFS } from '../../lib/clustering/clusterByThresholds';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { MOST_UNIQUE_FIRST, PREVIEWS_PER_CLUSTER } from './previews';

/**
 * Per-cluster counts of issue types, labels and tags (facets), so that a page filtered by one of them
 * reads its clusters, biggest first, from an index instead of counting every matching member
 * (migration 20261202500000); the counts keep the page's figures and previews too, so the page reads no
 * member (20261207100000, 20261208100000, 20261208200000). A version's counts of a kind (issue, label,
 * tag) are trusted only while `facets_counted` lists it: writers of issues or labels forget their kind,
 * writers of memberships and uniqueness every kind, in their transaction (`forgetFacetCounts`; all of
 * them are task steps), and a task's end counts again the kinds its version forgot (`countFacets`). A
 * batch added counts again only the clusters it touched, in its transaction (`recountClusterFacets`). Tag
 * writes add and subtract their own changes, dropping the figures of the clusters they touch; a page
 * counts those again (`recountedTagPage`).
 */

/** The facet a page's filters select, when they are one lookup a count answers; undefined otherwise. */
export function facetOf(filters: MediaFilter[]): string | undefined {
  if (filters.length !== 1) return undefined;
  const [filter] = filters;
  if (filter.kind === 'issue' && Object.keys(filter.details ?? {}).length === 0) return `issue:${filter.issue}`;
  if (filter.kind === 'labels' && filter.anyOf.length === 1) return `label:${filter.anyOf[0]}`;
  if (filter.kind === 'tags' && filter.anyOf.length === 1) return `tag:${filter.anyOf[0]}`;
  return undefined;
}

/** Each kind of facet, as its media and facets, from its own table (each table's key is version, media and value). */
const FACETS_OF_MEDIA = {
  issue: `SELECT media_id, 'issue:' || issue_type AS facet FROM media_issues WHERE version_id = :version`,
  label: `SELECT media_id, 'label:' || label AS facet FROM media_labels WHERE version_id = :version`,
  tag: `SELECT media_id, 'tag:' || tag_id AS facet FROM media_tags WHERE version_id = :version`,
};
export type FacetKind = keyof typeof FACETS_OF_MEDIA;
const FACET_KINDS = Object.keys(FACETS_OF_MEDIA) as FacetKind[];

export const kindOf = (facet: string): FacetKind => facet.slice(0, facet.indexOf(':')) as FacetKind;

/** Whether the version's counts of these kinds (all by default) match its rows. */
export async function facetsCounted(db: Db, versionId: string, kinds: FacetKind[] = FACET_KINDS): Promise<boolean> {
  const row = await db('dataset_versions').where({ id: versionId }).first('facets_counted');
  return Boolean(row) && kinds.every((kind) => row.facets_counted.includes(kind));
}

/** The version's counts of these kinds (all by default) no longer match its rows (call it in the transaction that changes them). */
export async function forgetFacetCounts(db: Db, versionId: string, kinds: FacetKind[] = FACET_KINDS): Promise<void> {
  // Conditional, so writers after the first neither write nor lock the version row.
  await db('dataset_versions')
    .where({ id: versionId })
    .whereRaw('facets_counted && ?::text[]', [kinds])
    .update({ facets_counted: db.raw('ARRAY(SELECT k FROM unnest(facets_counted) AS k WHERE k <> ALL(?::text[]))', [kinds]) });
}

/**
 * The page's clusters in order (`cluster_id`, `size`: its members with the facet) from the counts, with their figures
 * and previews (null for a tag's cluster a tag write touched since it was counted: see recountedTagPage).
 */
export function facetPage(db: Db, options: { versionId: string; threshold: number; facet: string; limit: number; offset: number }): Knex.QueryBuilder {
  return db('cluster_facet_counts')
    .where({ version_id: options.versionId, threshold: options.threshold, facet: options.facet })
    .select('cluster_id', 'n_images', 'n_frames', 'n_videos', 'n as size', db.raw('NULL::real AS relevance'), 'previews', 'writes')
    .orderBy([{ column: 'n', order: 'desc' }, { column: 'cluster_id' }])
    .limit(options.limit)
    .offset(options.offset);
}

/**
 * The version's counts per cluster at every threshold, inserted in key order (the indexes grow at their ends). Each
 * count also keeps its images, frames, videos and previews, as an unfiltered page chooses them (clusters.ts
 * previewsOf: the most unique first, ties by id).
 */
// Functions: their constants come from explore.ts, which imports this module.
const FIGURES_OF_MEMBERS = () => `count(*) FILTER (WHERE m.kind = 'IMAGE')::int AS n_images, count(*) FILTER (WHERE m.kind = 'VIDEO_FRAME')::int AS n_frames,
         count(DISTINCT m.parent_id)::int AS n_videos, (array_agg(m.id ORDER BY ${MOST_UNIQUE_FIRST}))[1:${PREVIEWS_PER_CLUSTER}] AS previews`;
const insertFacetCounts = (kinds: FacetKind[], members = '') => `
  INSERT INTO cluster_facet_counts (version_id, threshold, facet, cluster_id, n, n_images, n_frames, n_videos, previews)
  SELECT :version, cm.threshold, f.facet, cm.cluster_id, count(*), ${FIGURES_OF_MEMBERS()}
  FROM (${kinds.map((kind) => FACETS_OF_MEDIA[kind]).join(' UNION ALL ')}) f
  JOIN media m ON m.version_id = :version AND m.id = f.media_id
  JOIN cluster_members cm
    ON cm.clustering_id = (SELECT clustering_id FROM dataset_versions WHERE id = :version) AND cm.media_id = f.media_id ${members}
  GROUP BY cm.threshold, f.facet, cm.cluster_id
  ORDER BY cm.threshold, f.facet, cm.cluster_id`;

const COUNT_WORK_MEM = '256MB';
/** Every clustering threshold, named so a media item's memberships are found through the key (version, threshold, media). */
const THRESHOLDS = CLUSTER_SIMILARITY_CUTOFFS.map((_, threshold) => threshold);

/**
 * Counts the version's facets per cluster at every threshold, of the kinds not counted already. It
 * holds the version row, so tag writes (which hold it shared) wait for it and then count their own
 * changes on top; it reads the rows after taking it, so it sees every change committed before.
 */
export async function countFacets(db: Db, versionId: string, timeoutMs = 0): Promise<void> {
  await db.transaction(async (trx) => {
    // A statement over `timeoutMs` fails the count (0: no limit); the version stays uncounted.
    await trx.raw(`SET LOCAL statement_timeout = ${Math.round(timeoutMs)}`);
    const version = await trx('dataset_versions').where({ id: versionId }).forNoKeyUpdate().first('facets_counted');
    if (!version) return;
    const uncounted = FACET_KINDS.filter((kind) => !version.facets_counted.includes(kind));
    if (uncounted.length === 0) return;
    await trx('cluster_facet_counts').where({ version_id: versionId }).whereRaw(`split_part(facet, ':', 1) = ANY(?::text[])`, [uncounted]).delete();
    await trx.raw(`SET LOCAL work_mem = '${COUNT_WORK_MEM}'`);
    await trx.raw(insertFacetCounts(uncounted), { version: versionId });
    await trx('dataset_versions').where({ id: versionId }).update({ facets_counted: FACET_KINDS });
  });
}

/**
 * The kinds whose counts are current in the version, locking its row until the transaction ends (so nobody forgets or
 * counts a kind meanwhile, and tag writes wait): FOR UPDATE, the lock writers of memberships take first anyway
 * (clusters.ts lockedClustering), so that taking it cannot deadlock with a transaction holding a weaker one.
 */
export async function countedKinds(trx: Knex.Transaction, versionId: string): Promise<FacetKind[]> {
  const version = await trx('dataset_versions').where({ id: versionId }).forUpdate().first('facets_counted');
  return FACET_KINDS.filter((kind) => version?.facets_counted.includes(kind));
}

/**
 * The clusters, at every threshold, that media are members of: call it before and after a change to them (their
 * clusters then and now), for recountClusterFacets.
 */
export async function clustersOfMedia(trx: Knex.Transaction, versionId: string, mediaIds: readonly string[]): Promise<string[]> {
  if (mediaIds.length === 0) return [];
  const rows: Array<{ cluster_id: string }> = await trx('cluster_members')
    .whereRaw(`clustering_id = ${CLUSTERING_OF}`, [versionId])
    .whereRaw('threshold = ANY(?::smallint[]) AND media_id = ANY(?::uuid[])', [THRESHOLDS, [...mediaIds]])
    .distinct('cluster_id');
  return rows.map((row) => row.cluster_id);
}

/**
 * Counts again the facets of `kinds` of some clusters (at any threshold), from their members, and marks those kinds
 * counted: a change to a few clusters' members, issues or uniqueness (a batch added) keeps the version's counts instead
 * of leaving every filtered page to count its rows until the task's end counts the whole version again (4-7 s at
 * 100,000 media, on the cores Explore serves from). In the change's transaction, after countedKinds.
 */
export async function recountClusterFacets(trx: Knex.Transaction, versionId: string, clusterIds: readonly string[], kinds: FacetKind[]): Promise<void> {
  if (kinds.length === 0) return;
  const clusters = [...new Set(clusterIds)];
  if (clusters.length > 0) {
    await trx('cluster_facet_counts')
      .where({ version_id: versionId })
      .whereRaw(`split_part(facet, ':', 1) = ANY(?::text[]) AND cluster_id = ANY(?::uuid[])`, [kinds, clusters])
      .delete();
    await trx.raw(insertFacetCounts(kinds, 'AND cm.cluster_id = ANY(:clusters::uuid[])'), { version: versionId, clusters });
  }
  await trx('dataset_versions')
    .where({ id: versionId })
    .update({ facets_counted: trx.raw('ARRAY(SELECT DISTINCT k FROM unnest(facets_counted || ?::text[]) AS k ORDER BY k)', [kinds]) });
}

/**
 * Runs `change`, a statement that tags or untags media with `tagId` and returns their `media_id`s,
 * and adds `sign` (1 or -1) times the changed media to the tag's counts per cluster at every
 * threshold (counts that reach 0 go); the number of media changed. The counts it moves drop their
 * figures and previews, which cannot be added up (counting each touched cluster again here cost 3-7 s
 * for 100 media at 1,000,000), and note the write in `writes`. It holds the version row shared, so a
 * count in progress finishes first, or starts after and sees the change.
 */
export async function writeTagChange(
  trx: Knex.Transaction,
  versionId: string,
  tagId: string,
  change: { sql: string; bindings: readonly Knex.RawBinding[] },
  sign: 1 | -1,
): Promise<number> {
  const version = await trx('dataset_versions').where({ id: versionId }).forShare().first('facets_counted');
  if (!version?.facets_counted.includes('tag')) return (await trx.raw(change.sql, change.bindings)).rowCount ?? 0;
  const { rows } = await trx.raw(
    `WITH changed AS (${change.sql}),
          shift AS (SELECT cm.threshold, cm.cluster_id, count(*)::int * ? AS n
                    FROM changed JOIN cluster_members cm
                      ON cm.clustering_id = ${CLUSTERING_OF} AND cm.threshold = ANY(?::smallint[]) AND cm.media_id = changed.media_id
                    GROUP BY cm.threshold, cm.cluster_id),
          shifted AS (INSERT INTO cluster_facet_counts (version_id, threshold, facet, cluster_id, n)
                      SELECT ?, threshold, ?, cluster_id, n FROM shift
                      ON CONFLICT (version_id, threshold, facet, cluster_id) DO UPDATE SET n = cluster_facet_counts.n + EXCLUDED.n,
                        n_images = NULL, n_frames = NULL, n_videos = NULL, previews = NULL, writes = cluster_facet_counts.writes + 1)
     SELECT count(*)::int AS n FROM changed`,
    [...change.bindings, sign, versionId, THRESHOLDS, versionId, `tag:${tagId}`],
  );
  if (sign < 0) await trx('cluster_facet_counts').where({ version_id: versionId, facet: `tag:${tagId}` }).where('n', '<=', 0).delete();
  return rows[0].n;
}

/**
 * A tag's page from the counts as CTEs ahead of `page` (facetPage's columns), all in the page's snapshot. Its
 * clusters that a tag write touched since they were counted (no figures) are counted from their tagged members
 * (`recounted`), and stored back (`refilled`) unless a tag write touched them since the snapshot (`writes` moved)
 * or holds them now: locked rows are skipped, so a page never waits for nor deadlocks with a tag write, a count
 * or another page. A cluster not stored back is counted again by the next page that shows it.
 */
export function recountedTagPage(db: Db, options: { versionId: string; threshold: number; facet: string; limit: number; offset: number }): Knex.QueryBuilder {
  const key = (alias: string) => `${alias}.version_id = ? AND ${alias}.threshold = ? AND ${alias}.facet = ?`;
  const keyOf = [options.versionId, options.threshold, options.facet];
  return db
    .with('counted_page', facetPage(db, options))
    .with(
      'recounted',
      db.raw(
        `SELECT p.cluster_id, p.writes, ${FIGURES_OF_MEMBERS()}
         FROM counted_page p
         JOIN cluster_members cm ON cm.clustering_id = ${CLUSTERING_OF} AND cm.threshold = ? AND cm.cluster_id = p.cluster_id
         JOIN media_tags mt ON mt.version_id = ? AND mt.tag_id = ? AND mt.media_id = cm.media_id
         JOIN media m ON m.version_id = ? AND m.id = cm.media_id
         WHERE p.previews IS NULL
         GROUP BY p.cluster_id, p.writes`,
        [options.versionId, options.threshold, options.versionId, options.facet.slice('tag:'.length), options.versionId],
      ),
    )
    .with(
      'refilled',
      db.raw(
        `UPDATE cluster_facet_counts c
         SET n_images = r.n_images, n_frames = r.n_frames, n_videos = r.n_videos, previews = r.previews
         FROM recounted r
         WHERE ${key('c')} AND c.cluster_id = r.cluster_id AND c.writes = r.writes
           AND c.cluster_id IN (SELECT l.cluster_id FROM cluster_facet_counts l
                                WHERE ${key('l')} AND l.cluster_id IN (SELECT cluster_id FROM recounted)
                                FOR UPDATE SKIP LOCKED)`,
        [...keyOf, ...keyOf],
      ),
    )
    .with(
      'page',
      db.raw(
        `SELECT p.cluster_id, coalesce(p.n_images, r.n_images) AS n_images, coalesce(p.n_frames, r.n_frames) AS n_frames,
                coalesce(p.n_videos, r.n_videos) AS n_videos, p.size, p.relevance, coalesce(p.previews, r.previews) AS previews
         FROM counted_page p LEFT JOIN recounted r ON r.cluster_id = p.cluster_id`,
      ),
    );
}

/** The counts of versions about to be deleted (the table has no foreign key to cascade). */
export async function deleteFacetCounts(db: Db, versionIds: Knex.QueryBuilder | string[]): Promise<void> {
  await db('cluster_facet_counts').whereIn('version_id', versionIds).delete();
}

/** A deleted tag's counts. */
export async function dropTagCounts(db: Db, versionId: string, tagId: string): Promise<void> {
  await db('cluster_facet_counts').where({ version_id: versionId, facet: `tag:${tagId}` }).delete();
}
