import type { Knex } from 'knex';
import type { Db } from '../connection';

/** A predicate on media rows (alias `m`), compiled from Explore parameters and VQL. */
export type MediaFilter =
  | { kind: 'issue'; issue: string }
  | { kind: 'duplicateSimilarity'; atLeast: number }
  | { kind: 'uniqueness'; atLeast: number }
  | { kind: 'labels'; anyOf: string[] }
  | { kind: 'tags'; anyOf: string[] }
  | { kind: 'fullText'; query: string };

export const CLUSTERS_PER_PAGE = 100;
export const PREVIEWS_PER_CLUSTER = 10;

function applyFilter(query: Knex.QueryBuilder, db: Db, filter: MediaFilter): void {
  switch (filter.kind) {
    case 'issue':
      query.whereExists(db('media_issues as i').whereRaw('i.media_id = m.id').where('i.issue_type', filter.issue));
      return;
    case 'duplicateSimilarity':
      query.whereExists(
        db('media_issues as i')
          .whereRaw('i.media_id = m.id')
          .where('i.issue_type', 'duplicates')
          .whereRaw(`(i.details->>'similarity')::float >= ?`, [filter.atLeast]),
      );
      return;
    case 'uniqueness':
      query.where('m.uniqueness_score', '>=', filter.atLeast);
      return;
    case 'labels':
      query.whereExists(db('media_labels as l').whereRaw('l.media_id = m.id').whereIn('l.label', filter.anyOf));
      return;
    case 'tags':
      query.whereExists(db('media_tags as t').whereRaw('t.media_id = m.id').whereIn('t.tag_id', filter.anyOf));
      return;
    case 'fullText':
      query.whereRaw(`m.caption_tsv @@ websearch_to_tsquery('english', ?)`, [filter.query]);
      return;
  }
}

/** Cosine distances of the media a vector search found; only they are shown, nearest first. */
export interface Relevance {
  ids: string[];
  distances: number[];
}

export interface ExploreCluster {
  cluster_id: string;
  relevance: number | null;
  n_images: number;
  n_frames: number;
  n_videos: number;
  previews: PreviewRow[];
}

export interface PreviewRow {
  id: string;
  kind: 'IMAGE' | 'VIDEO_FRAME';
  file_name: string;
  caption: string | null;
  width: number | null;
  height: number | null;
  thumb_sha256: string | null;
  labels: string[] | null;
  tags: Array<{ id: string; name: string }> | null;
  relevance: number | null;
}

/**
 * One page of a dataset's clusters at `threshold`, counting and previewing only the media that
 * pass every filter; biggest clusters first. One SQL statement.
 */
export async function exploreClusters(
  db: Db,
  options: { datasetId: string; threshold: number; page: number; filters: MediaFilter[]; relevance?: Relevance },
): Promise<ExploreCluster[]> {
  const matching = db('cluster_members as cm')
    .join('media as m', 'm.id', 'cm.media_id')
    .where({ 'cm.dataset_id': options.datasetId, 'cm.threshold': options.threshold })
    .select('cm.cluster_id', 'm.id', 'm.kind', 'm.parent_id', 'm.uniqueness_score');
  if (options.relevance) {
    matching
      .joinRaw('JOIN unnest(?::uuid[], ?::real[]) AS r(id, distance) ON r.id = m.id', [options.relevance.ids, options.relevance.distances])
      .select('r.distance');
  } else {
    matching.select(db.raw('NULL::real AS distance'));
  }
  for (const filter of options.filters) applyFilter(matching, db, filter);

  const page = db('matching')
    .groupBy('cluster_id')
    .select(
      'cluster_id',
      db.raw(`count(*) filter (where kind = 'IMAGE')::int as n_images`),
      db.raw(`count(*) filter (where kind = 'VIDEO_FRAME')::int as n_frames`),
      db.raw('count(distinct parent_id)::int as n_videos'),
      db.raw('count(*)::int as size'),
      db.raw('min(distance) as relevance'),
    )
    .orderBy([{ column: 'relevance', order: 'asc' }, { column: 'size', order: 'desc' }, { column: 'cluster_id' }])
    .limit(CLUSTERS_PER_PAGE)
    .offset(options.page * CLUSTERS_PER_PAGE);

  const rows = await db
    .with('matching', matching)
    .with('page', page)
    .from('page')
    .joinRaw(
      `CROSS JOIN LATERAL (
        SELECT m.id, m.kind, m.file_name, m.caption, m.width, m.height, m.thumb_sha256, mm.distance AS relevance,
          (SELECT array_agg(l.label ORDER BY l.label) FROM media_labels l WHERE l.media_id = m.id) AS labels,
          (SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.name)
             FROM media_tags mt JOIN tags t ON t.id = mt.tag_id WHERE mt.media_id = m.id) AS tags
        FROM matching mm JOIN media m ON m.id = mm.id
        WHERE mm.cluster_id = page.cluster_id
        ORDER BY mm.distance ASC, m.uniqueness_score DESC NULLS LAST, m.id
        LIMIT ${PREVIEWS_PER_CLUSTER}
      ) p`,
    )
    .select('page.*', db.raw('row_to_json(p) as preview'))
    .orderBy([{ column: 'page.relevance', order: 'asc' }, { column: 'page.size', order: 'desc' }, { column: 'page.cluster_id' }]);

  const clusters = new Map<string, ExploreCluster>();
  for (const row of rows) {
    let cluster = clusters.get(row.cluster_id);
    if (!cluster) {
      cluster = {
        cluster_id: row.cluster_id,
        relevance: row.relevance,
        n_images: row.n_images,
        n_frames: row.n_frames,
        n_videos: row.n_videos,
        previews: [],
      };
      clusters.set(row.cluster_id, cluster);
    }
    cluster.previews.push(row.preview);
  }
  return [...clusters.values()];
}
