import type { Knex } from 'knex';
import type { Db } from '../connection';
import { clusteringOf } from './clusteringOf';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { facetOf, facetPage, facetsCounted, kindOf, recountedTagPage } from './clusterFacets';
import { MOST_UNIQUE_FIRST, PREVIEWS_PER_CLUSTER } from './previews';

export const CLUSTERS_PER_PAGE = 100;

/**
 * What names a media item's version and id in a query: the media row's columns, or a cluster
 * member's id in a version given as a binding (memberships belong to a clustering, not a version).
 */
interface MediaKey {
  version: string;
  versionBindings: string[];
  id: string;
}
const MEDIA_ROW: MediaKey = { version: 'm.version_id', versionBindings: [], id: 'm.id' };
const memberRow = (versionId: string): MediaKey => ({ version: '?', versionBindings: [versionId], id: 'cm.media_id' });

/** Filters answered from other tables by media id alone, without the media row. */
const BY_MEDIA_ID: ReadonlySet<MediaFilter['kind']> = new Set(['issue', 'duplicateSimilarity', 'labels', 'tags', 'mapRegion']);

/** Keeps the rows of `query` whose media item passes `filter` (`m` is the media row, unless `key` names other columns). */
export function applyFilter(query: Knex.QueryBuilder, db: Db, filter: MediaFilter, key: MediaKey = MEDIA_ROW): void {
  const sameMedia = (alias: string): [string, string[]] => [`${alias}.version_id = ${key.version} AND ${alias}.media_id = ${key.id}`, key.versionBindings];
  switch (filter.kind) {
    case 'issue': {
      const issues = db('media_issues as i').whereRaw(...sameMedia('i')).where('i.issue_type', filter.issue);
      for (const [field, values] of Object.entries(filter.details ?? {})) issues.whereRaw(`i.details->>? IN (${values.map(() => '?').join(', ')})`, [field, ...values]);
      query.whereExists(issues);
      return;
    }
    case 'duplicateSimilarity':
      query.whereExists(
        db('media_issues as i')
          .whereRaw(...sameMedia('i'))
          .where('i.issue_type', 'duplicates')
          .whereRaw(`(i.details->>'similarity')::float >= ?`, [filter.atLeast]),
      );
      return;
    case 'uniqueness':
      query.where('m.uniqueness_score', '>=', filter.atLeast);
      return;
    case 'labels':
      query.whereExists(db('media_labels as l').whereRaw(...sameMedia('l')).whereIn('l.label', filter.anyOf));
      return;
    case 'groundTruth':
      // The declared field is the version's (its label-quality report): one row by key, joined, not read per media row.
      query.whereExists(
        db('dataset_versions as gv')
          .whereRaw('gv.id = m.version_id')
          .whereRaw(`m.custom_metadata ->> (gv.label_quality ->> 'label_field') = ANY(?::text[])`, [filter.anyOf]),
      );
      return;
    case 'metadata':
      query.whereRaw('m.custom_metadata ->> ? = ANY(?::text[])', [filter.field, filter.anyOf]);
      return;
    case 'tags':
      query.whereExists(db('media_tags as t').whereRaw(...sameMedia('t')).whereIn('t.tag_id', filter.anyOf));
      return;
    case 'fullText':
      query.whereRaw(`m.caption_tsv @@ websearch_to_tsquery('english', ?)`, [filter.query]);
      return;
    case 'mapRegion':
      query.whereExists(mapPointsWithin(db, filter).whereRaw(...sameMedia('p')));
      return;
    case 'batch':
      query.where('m.batch_id', filter.batchId);
      return;
  }
}

/**
 * The map points of layout `layoutId` inside `polygon` (Postgres's own `point <@ polygon`, no PostGIS);
 * the polygon's bounding box first, so only points near the lasso meet the vertex-by-vertex test.
 */
function mapPointsWithin(db: Db, region: Extract<MediaFilter, { kind: 'mapRegion' }>): Knex.QueryBuilder {
  const xs = region.polygon.map(([x]) => x);
  const ys = region.polygon.map(([, y]) => y);
  const polygon = `(${region.polygon.map(([x, y]) => `(${x},${y})`).join(',')})`;
  return db('map_points as p')
    .join('dataset_versions as pv', 'pv.id', 'p.version_id')
    .where('pv.map_layout_id', region.layoutId)
    .whereBetween('p.x', [Math.min(...xs), Math.max(...xs)])
    .whereBetween('p.y', [Math.min(...ys), Math.max(...ys)])
    .whereRaw('point(p.x, p.y) <@ ?::polygon', [polygon]);
}

/**
 * Cosine distances one or more vector searches found, each of media by a key column: the media id
 * (visual search), the caption's content key (every media item with that caption ranks at its
 * distance) or the concept vector's content key. Only media some search found are shown, nearest
 * first, each at the weighted mean of the distances the searches found it at (weight 1 by default),
 * and only below `maxDistance` when it is given.
 */
export interface Relevance {
  by: Array<{ key: 'id' | 'caption_key' | 'concept_key' | 'object_id'; ids: string[]; distances: number[]; weight?: number }>;
  maxDistance?: number;
}

/** Joins each search's hits to `matching` by its key column and selects the combined `distance`. */
function joinRelevance(matching: Knex.QueryBuilder, db: Db, relevance: Relevance, columnOf: (key: Relevance['by'][number]['key']) => string): void {
  const found = relevance.by.map((search, i) => {
    matching.joinRaw(`LEFT JOIN unnest(?::uuid[], ?::real[]) AS r${i}(id, distance) ON r${i}.id = ${columnOf(search.key)}`, [search.ids, search.distances]);
    return { distance: `r${i}.distance`, weight: search.weight ?? 1 };
  });
  const weighted = found.map(({ distance, weight }) => `coalesce(${weight} * ${distance}, 0)`).join(' + ');
  const weights = found.map(({ distance, weight }) => `(CASE WHEN ${distance} IS NULL THEN 0 ELSE ${weight} END)`).join(' + ');
  const combined = `((${weighted}) / nullif(${weights}, 0))`;
  matching.whereRaw(`(${found.map(({ distance }) => `${distance} IS NOT NULL`).join(' OR ')})`).select(db.raw(`${combined} AS distance`));
  if (relevance.maxDistance !== undefined) matching.whereRaw(`${combined} < ?`, [relevance.maxDistance]);
}

/** The column of an image's media row a relevance key joins on (an object hit stands for the image it is in). */
const mediaColumn = (key: Relevance['by'][number]['key']): string => `m.${key === 'object_id' ? 'id' : key}`;

/** A media row's cluster at `threshold` (clusters.ts refreshExploreCopies keeps them; NULL before any analysis). */
const clusterAt = (threshold: number): string => `m.cluster_ids[${threshold + 1}]`;

/**
 * The media of a version some search of `relevance` found (at a distance up to `cutoff`, when given), with their
 * cluster at `threshold` and their combined `distance`, that pass every filter and are in a cluster: read from the
 * media rows alone, looked up by the hits' keys (the ids by the primary key; caption and concept keys by their indexes,
 * which carry each row's clusters), with no join on the memberships.
 */
function rankedHits(db: Db, options: { versionId: string; threshold: number; filters: MediaFilter[]; relevance: Relevance; cutoff?: number }): Knex.QueryBuilder {
  const { relevance, cutoff } = options;
  const hits = db('media as m')
    .where('m.version_id', options.versionId)
    .whereRaw(`${clusterAt(options.threshold)} IS NOT NULL`)
    .select(db.raw(`${clusterAt(options.threshold)} AS cluster_id`));
  // A visual search's hits (ids alone, every one) are joined, not named too: named, Postgres took the join to keep a
  // hundredth of them and planned the rest of the page for 10 rows (12 against 9.5 ms of Postgres CPU a page at
  // 100,000 media), though at 30,000 media, where it hashes every media row for the join, it read them by key instead
  // (9.0 against 17.8 ms).
  if (cutoff !== undefined || relevance.by.some((search) => search.key !== 'id')) {
    hits.whereRaw(
      `(${relevance.by.map((search) => `${mediaColumn(search.key)} = ANY(?::uuid[])`).join(' OR ')})`,
      relevance.by.map((search) => (cutoff === undefined ? search.ids : search.ids.filter((_, i) => search.distances[i] <= cutoff))),
    );
  }
  joinRelevance(hits, db, relevance, mediaColumn);
  for (const filter of options.filters) applyFilter(hits, db, filter);
  return hits;
}

/**
 * Up to this many members in all, a ranked page's clusters' matches are read by their memberships rather than by the
 * hits' keys. Postgres CPU for a caption-ranked page at 30,000 media, a third captioned (2026-12-06): 100 members 12 ms
 * against 17 by the keys, 300 members 16.5 against 19, 1,000 members 27 against 20 (the keys' rows grow with the media).
 */
const RANKED_PAGE_BY_MEMBERS = 500;

/** A cluster is known to be complete when its nearest member lies this far inside the next round's cut-off (the hits' distances are real in SQL). */
const CUTOFF_SLACK = 1e-5;

/**
 * The clusters of a ranked page, in page order, found without visiting every match. A cluster ranks by
 * its nearest matching member (ties by its stored size, biggest first, then by id), and a member's
 * distance is a weighted mean of the distances its searches found it at, so it is no nearer than the
 * nearest of them: the clusters whose nearest member is nearer than the first distance past a cut-off
 * are all found, with their exact nearest distance, from the hits within it, and rank before every
 * cluster not found. The cut-off starts at the nearest distinct distance and grows, each round to as
 * many distances as the complete clusters found so far say the page needs (times 1.5, at least twice as
 * many), until such clusters fill the pages up to this one.
 */
async function rankedCandidates(
  db: Db,
  options: { versionId: string; threshold: number; filters: MediaFilter[]; relevance: Relevance; offset: number; limit: number },
): Promise<Array<{ cluster_id: string; size: number }>> {
  const { relevance } = options;
  const needed = options.offset + options.limit;
  const cutoffs = [...new Set(relevance.by.flatMap((search) => search.distances))]
    .filter((distance) => relevance.maxDistance === undefined || distance < relevance.maxDistance)
    .sort((a, b) => a - b);
  for (let covered = 1; cutoffs.length > 0; ) {
    const every = covered >= cutoffs.length;
    const cutoff = cutoffs[Math.min(covered, cutoffs.length) - 1];
    const found = rankedHits(db, { ...options, cutoff });
    const clusters: Array<{ cluster_id: string; nearest: number; size: number }> = await db
      .from(found.as('f'))
      .join('clusters as c', 'c.id', 'f.cluster_id')
      .where('c.clustering_id', clusteringOf(db, options.versionId))
      .groupBy('f.cluster_id', 'c.size')
      .select('f.cluster_id', 'c.size', db.raw('min(f.distance)::float8 AS nearest'));
    // A member not found has every distance at least the next one, so its mean is no nearer either.
    const complete = every ? clusters : clusters.filter((cluster) => cluster.nearest <= cutoffs[covered] - CUTOFF_SLACK);
    if (complete.length >= needed || every) {
      return complete
        .sort((a, b) => a.nearest - b.nearest || b.size - a.size || (a.cluster_id < b.cluster_id ? -1 : 1))
        .slice(options.offset, needed);
    }
    covered = Math.max(2 * covered, Math.ceil((1.5 * needed * covered) / Math.max(1, complete.length)));
  }
  return [];
}

/** Members the biggest-first walk reads first, and at most in all (past that it counts every match instead). */
const WALK_FIRST_MEMBERS = 1_000;
const WALK_MOST_MEMBERS = 7_500;

/**
 * The clusters a filtered page (not ranked) can hold, found by reading the clusters biggest first, when
 * that is cheap; undefined when the page must count every match instead. A page orders clusters by how
 * many members pass the filters (ties by id), and no cluster has more passing members than members: so
 * once the clusters read fill the pages up to this one, and the next cluster is smaller than the last one
 * needed (or as big, with a later id: clusters of one size come in id order), no later cluster can be on
 * the page. The walk reads WALK_FIRST_MEMBERS members, then as many more as the passing clusters found so
 * far say the page needs, up to WALK_MOST_MEMBERS in all. It gives up when the pages are filled but the
 * next cluster could still enter (clusters about as big as their counts), or when the page would need
 * more: dense filters on fine clusters stop early; sparse filters count every match, which is small.
 */
async function biggestFirstCandidates(
  db: Db,
  options: { versionId: string; threshold: number; matching: () => Knex.QueryBuilder; needed: number },
): Promise<string[] | undefined> {
  const counts: Array<{ cluster_id: string; n: number }> = [];
  let read = 0;
  let covered = 0;
  const biggestFirst = () =>
    db('clusters')
      .where({ clustering_id: clusteringOf(db, options.versionId), threshold: options.threshold, entity_type: 'IMAGES' })
      .orderBy([{ column: 'size', order: 'desc' }, { column: 'id' }]);
  for (let budget = WALK_FIRST_MEMBERS; ; ) {
    const order: Array<{ id: string; size: number }> = await biggestFirst().offset(read).limit(budget + 1).select('id', 'size');
    let taken = 0;
    let stage = 0;
    while (taken < order.length && stage + order[taken].size <= budget) stage += order[taken++].size;
    if (taken === 0) return undefined;
    // The stage's clusters named by the same order again, not by their ids: 1,000 of them cost more to send than to find.
    const stageClusters = biggestFirst().offset(read).limit(taken).select('id');
    covered += stage;
    read += taken;
    // Cluster by cluster (lateral), so that each reads its own members through the index.
    const stageCounts: Array<{ cluster_id: string; n: number }> = await db
      .from(stageClusters.as('b'))
      .crossJoin(db.raw('LATERAL (SELECT count(*)::int AS n FROM (?) AS f) AS c', [options.matching().whereRaw('cm.cluster_id = b.id')]))
      .where('c.n', '>', 0)
      .select('b.id as cluster_id', 'c.n');
    counts.push(...stageCounts);
    const top = [...counts].sort((a, b) => b.n - a.n || (a.cluster_id < b.cluster_id ? -1 : 1)).slice(0, options.needed);
    const next = order[taken];
    if (!next) return top.map((cluster) => cluster.cluster_id);
    if (top.length === options.needed) {
      const last = top[options.needed - 1];
      const stops = next.size < last.n || (next.size === last.n && next.id > last.cluster_id);
      return stops ? top.map((cluster) => cluster.cluster_id) : undefined;
    }
    // Not filled yet: read what the passing clusters found so far say the page needs, if the walk may.
    const wanted = counts.length === 0 ? Infinity : Math.ceil((options.needed * covered) / counts.length) - covered;
    if (covered + wanted > WALK_MOST_MEMBERS) return undefined;
    budget = Math.min(WALK_MOST_MEMBERS - covered, Math.max(covered, Math.ceil(wanted * 1.5)));
  }
}

/**
 * The clusters a page filtered by uniqueness ≥ `atLeast` alone and those before it can hold, from the scores each
 * cluster keeps (clusters.ts refreshExploreCopies: `width_bucket` counts its members passing), without reading a
 * member; undefined when a cluster has none kept. The biggest clusters first, as biggestFirstCandidates reads them,
 * while that can decide the page; else every cluster of the threshold, ordered in Postgres. A page of a uniqueness
 * filter at threshold 1-2 counted 40,000 media rows at 100,000 media.
 */
async function uniquenessCandidates(db: Db, options: { versionId: string; threshold: number; atLeast: number; needed: number }): Promise<string[] | undefined> {
  const clusters = () => db('clusters').where({ clustering_id: clusteringOf(db, options.versionId), threshold: options.threshold, entity_type: 'IMAGES' });
  // The comparison of the filter itself, in real (the column's type): -x ≥ -u exactly when u ≥ x.
  const passing = db.raw('width_bucket(-(?::real), negated_uniqueness)', [options.atLeast]);
  const first: Array<{ id: string; size: number; n: number | null }> = await clusters()
    .orderBy([{ column: 'size', order: 'desc' }, { column: 'id' }])
    .limit(UNIQUENESS_FIRST_CLUSTERS + 1)
    .select('id', 'size', db.raw('? AS n', [passing]));
  const read = first.slice(0, UNIQUENESS_FIRST_CLUSTERS);
  if (read.some((cluster) => cluster.n === null)) return undefined;
  const top = read
    .filter((cluster) => cluster.n! > 0)
    .sort((a, b) => b.n! - a.n! || (a.id < b.id ? -1 : 1))
    .slice(0, options.needed);
  const next = first[UNIQUENESS_FIRST_CLUSTERS];
  const last = top.at(-1);
  // As in biggestFirstCandidates: no cluster after `next` has more members than it, and those as big come in id order.
  if (!next || (top.length === options.needed && (next.size < last!.n! || (next.size === last!.n && next.id > last!.id)))) return top.map((cluster) => cluster.id);
  const ordered: Array<{ id: string; n: number | null }> = await clusters()
    .orderByRaw('n DESC NULLS FIRST, id')
    .limit(options.needed)
    .select('id', db.raw('? AS n', [passing]));
  if (ordered.some((cluster) => cluster.n === null)) return undefined;
  return ordered.filter((cluster) => cluster.n! > 0).map((cluster) => cluster.id);
}
/** Clusters uniquenessCandidates reads biggest first before it orders them all. */
const UNIQUENESS_FIRST_CLUSTERS = 1_000;

export interface ExploreCluster {
  cluster_id: string;
  type: 'IMAGES' | 'OBJECTS';
  relevance: number | null;
  n_images: number;
  n_frames: number;
  n_videos: number;
  n_objects: number;
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
  /** Its class: the value of the version's declared label field (the user's label), null without one. */
  class: string | null;
  tags: Array<{ id: string; name: string }> | null;
  relevance: number | null;
  /** The object's box in its image (OBJECTS previews only). */
  bounding_box?: { x: number; y: number; width: number; height: number };
}

/** A media item's class (`m` is the media row): the value of its version's declared label field, null without one. */
export const MEDIA_CLASS_SQL = `nullif(btrim(m.custom_metadata ->> (SELECT v.label_quality->>'label_field' FROM dataset_versions v WHERE v.id = m.version_id)), '')`;

/** A preview's user tags, as JSON (`m` is the media row). */
export const PREVIEW_TAGS_SQL = `(SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.name)
  FROM media_tags mt JOIN tags t ON t.version_id = mt.version_id AND t.id = mt.tag_id
  WHERE mt.version_id = m.version_id AND mt.media_id = m.id)`;

/** A row of a page query: one preview with its cluster's figures (an entity type has the counts it has). */
interface PageRow {
  cluster_id: string;
  relevance: number | null;
  n_images: number;
  n_frames?: number;
  n_videos?: number;
  n_objects?: number;
  preview: PreviewRow;
}

/** Page rows (one per preview, in page order) grouped into clusters of `type`. */
function clustersOfRows(rows: PageRow[], type: ExploreCluster['type']): ExploreCluster[] {
  const clusters = new Map<string, ExploreCluster>();
  for (const row of rows) {
    let cluster = clusters.get(row.cluster_id);
    if (!cluster) {
      const { cluster_id, relevance, n_images, n_frames = 0, n_videos = 0, n_objects = 0 } = row;
      cluster = { cluster_id, type, relevance, n_images, n_frames, n_videos, n_objects, previews: [] };
      clusters.set(row.cluster_id, cluster);
    }
    cluster.previews.push(row.preview);
  }
  return [...clusters.values()];
}

/**
 * One page of a dataset's clusters at `threshold`, counting and previewing only the media that
 * pass every filter; biggest clusters first, or nearest first when ranked by relevance. One SQL
 * statement. Without filters the page comes straight from the stored clusters, and filtered by one issue type,
 * label or tag from the stored facet counts (clusterFacets.ts), previews included.
 */
export async function exploreClusters(
  db: Db,
  options: { versionId: string; threshold: number; page: number; filters: MediaFilter[]; relevance?: Relevance },
): Promise<ExploreCluster[]> {
  let query: Knex.QueryBuilder;
  // One issue type, label or tag: the page comes from the stored counts (the version's counts of its kind must be current).
  const facet = options.relevance ? undefined : facetOf(options.filters);
  const counted = facet !== undefined && (await facetsCounted(db, options.versionId, [kindOf(facet)]));
  const pageRange = { limit: CLUSTERS_PER_PAGE, offset: options.page * CLUSTERS_PER_PAGE };
  const stored =
    options.filters.length === 0 && !options.relevance
      ? db.with(
          'page',
          db('clusters')
            .where({ clustering_id: clusteringOf(db, options.versionId), threshold: options.threshold, entity_type: 'IMAGES' })
            .select('id as cluster_id', 'n_images', 'n_frames', 'n_videos', 'size', db.raw('NULL::real AS relevance'), 'previews')
            .orderBy([{ column: 'size', order: 'desc' }, { column: 'id' }])
            .limit(pageRange.limit)
            .offset(pageRange.offset),
        )
      : counted
        ? facet.startsWith('tag:')
          ? recountedTagPage(db, { versionId: options.versionId, threshold: options.threshold, facet, ...pageRange })
          : db.with('page', facetPage(db, { versionId: options.versionId, threshold: options.threshold, facet, ...pageRange }))
        : undefined;
  if (stored) {
    // The previews each cluster keeps, in their order (clusters.ts refreshExploreCopies): no member is ranked here.
    const kept = db('page')
      .crossJoin(db.raw('unnest(page.previews) WITH ORDINALITY AS p(id, rank)'))
      .select('page.cluster_id', 'p.id', db.raw('NULL::real AS distance'), 'p.rank');
    query = stored.with('ranked', kept);
  } else {
    // The matching members of every cluster order the clusters. A ranked page's are its hits, with the
    // clusters their media rows keep. When every filter is a lookup by media id they come from the
    // memberships alone, and media rows are read only for the page's clusters (their counts by kind and
    // their previews).
    const byIdOnly = !options.relevance && options.filters.every((filter) => BY_MEDIA_ID.has(filter.kind));
    // The media row's figures a page needs of each member, read once: with the matches when a filter reads the row.
    const FIGURES = ['kind', 'parent_id', 'uniqueness_score', 'repeat_of_frame'];
    // Members of `clusterIds` when known (memberships of the threshold already: asking for it too made Postgres
    // intersect them with every membership of the threshold, 100 ms at 1M), else of every cluster of the threshold.
    // With `byMembership`, a ranked page's matches are read by its clusters' members (few, see RANKED_PAGE_BY_MEMBERS).
    const matchingMembers = (clusterIds?: string[], byMembership = false) => {
      if (options.relevance) {
        const hits = rankedHits(db, { ...options, relevance: options.relevance }).select('m.id', ...FIGURES.map((column) => `m.${column}`));
        if (!clusterIds) return hits;
        hits.whereRaw(`${clusterAt(options.threshold)} = ANY(?::uuid[])`, [clusterIds]);
        if (!byMembership) return hits;
        // An array, so that the planner looks the rows up by key rather than weigh a join against reading every row.
        const members = db('cluster_members as cm').where('cm.clustering_id', clusteringOf(db, options.versionId)).whereRaw('cm.cluster_id = ANY(?::uuid[])', [clusterIds]);
        return hits.whereRaw('m.id = ANY(ARRAY(?))', [members.select('cm.media_id')]);
      }
      const members = db('cluster_members as cm').where('cm.clustering_id', clusteringOf(db, options.versionId)).select('cm.cluster_id', 'cm.media_id as id');
      if (clusterIds) members.whereRaw('cm.cluster_id = ANY(?::uuid[])', [clusterIds]);
      else members.where('cm.threshold', options.threshold);
      if (!byIdOnly) {
        members.join('media as m', (join) => join.onVal('m.version_id', options.versionId).andOn('m.id', 'cm.media_id'));
        members.select(FIGURES.map((column) => `m.${column}`));
      }
      members.select(db.raw('NULL::real AS distance'));
      for (const filter of options.filters) applyFilter(members, db, filter, byIdOnly ? memberRow(options.versionId) : MEDIA_ROW);
      return members;
    };
    const [only] = options.filters;
    const uniqueness = options.filters.length === 1 && only.kind === 'uniqueness' ? only.atLeast : undefined;
    // Which clusters can be on the page, when that is known without counting every match: a ranked page's
    // own clusters in order, or the clusters a filtered page and those before it can hold.
    // A search by media id (visual) matches at most its hits: counting them all is cheap.
    const rankedPage =
      options.relevance && !options.relevance.by.every((search) => search.key === 'id')
        ? await rankedCandidates(db, { ...options, relevance: options.relevance, ...pageRange })
        : undefined;
    // A ranked page of few members reads them by key (a caption search's keys alone read a third of the version's media rows).
    const byMembership = rankedPage !== undefined && rankedPage.reduce((sum, cluster) => sum + cluster.size, 0) <= RANKED_PAGE_BY_MEMBERS;
    const candidates = options.relevance
      ? rankedPage?.map((cluster) => cluster.cluster_id)
      : ((uniqueness !== undefined ? await uniquenessCandidates(db, { ...options, atLeast: uniqueness, needed: pageRange.offset + pageRange.limit }) : undefined) ??
        (await biggestFirstCandidates(db, { ...options, matching: matchingMembers, needed: pageRange.offset + pageRange.limit })));
    // Every match of a filter that reads the media row: the rows alone, with the cluster each keeps, without joining the
    // memberships (100,000 of them joined to their media rows for a uniqueness filter took 200-400 ms at 100,000 media).
    const everyMediaRowMatch = () => {
      const rows = db('media as m')
        .where('m.version_id', options.versionId)
        .whereRaw(`${clusterAt(options.threshold)} IS NOT NULL`)
        .select(db.raw(`${clusterAt(options.threshold)} AS cluster_id`), 'm.id', ...FIGURES.map((column) => `m.${column}`), db.raw('NULL::real AS distance'));
      for (const filter of options.filters) applyFilter(rows, db, filter);
      return rows;
    };
    const matching = candidates || options.relevance || byIdOnly ? matchingMembers(candidates, byMembership) : everyMediaRowMatch();
    // Ranked pages order ties by the clusters' stored sizes, filtered pages by how many members pass.
    const grouped = () => {
      if (!options.relevance) return db('matching').groupBy('cluster_id').select('cluster_id', db.raw('count(*)::int as size'), db.raw('min(distance) as relevance'));
      const nearest = db('matching').groupBy('cluster_id').select('cluster_id', db.raw('min(distance) AS relevance'));
      const sizes = db
        .from(nearest.as('mt'))
        .join('clusters as c', 'c.id', 'mt.cluster_id')
        .where('c.clustering_id', clusteringOf(db, options.versionId))
        .select('mt.cluster_id', 'c.size', 'mt.relevance');
      // The page's own clusters by their key: the planner, expecting many more matches than there are, read every
      // cluster row instead (200 ms at 1M, where a whole analysis had left the table 400 MB of dead rows). Matches read
      // by membership it takes for few, and it then looked the ids up again for each (8 ms for 100 clusters).
      if (candidates && !byMembership) return sizes.whereRaw('c.id = ANY(?::uuid[])', [candidates]);
      if (candidates) return sizes;
      // Sizes only order clusters equally near: only those up to the page's end, and those as near as its last, need
      // theirs (a visual search's 1,000 hits read as many cluster rows to order 100).
      const pageEnd = db('matching').groupBy('cluster_id').select(db.raw('min(distance)')).orderByRaw('1').offset(pageRange.offset + pageRange.limit - 1).limit(1);
      return sizes.whereRaw(`mt.relevance <= coalesce((?), 'Infinity')`, [pageEnd]);
    };
    const ordered = grouped()
      .orderBy([{ column: 'relevance', order: 'asc' }, { column: 'size', order: 'desc' }, { column: 'cluster_id' }])
      .limit(pageRange.limit)
      // A ranked page's candidates are its own clusters already.
      .offset(options.relevance && candidates ? 0 : pageRange.offset);
    const members = db('matching')
      .whereIn('cluster_id', db('ordered').select('cluster_id'))
      .select('cluster_id', 'id', 'distance', ...(byIdOnly ? [] : FIGURES));
    // Up to PREVIEWS_PER_CLUSTER previews per cluster of the page: nearest, then most unique, first; repeated frames last.
    const ranked = db('members as mm');
    if (byIdOnly) ranked.join('media as m', (join) => join.onVal('m.version_id', options.versionId).andOn('m.id', 'mm.id'));
    const figure = (column: string) => `${byIdOnly ? 'm' : 'mm'}.${column}`;
    ranked.select(
      'mm.cluster_id',
      'mm.id',
      'mm.distance',
      figure('kind'),
      figure('parent_id'),
      db.raw(
        `row_number() OVER (PARTITION BY mm.cluster_id ORDER BY ${figure('repeat_of_frame')} IS NOT NULL, mm.distance ASC NULLS LAST, ${figure('uniqueness_score')} DESC NULLS LAST, mm.id) AS rank`,
      ),
    );
    const page = db('ordered as o')
      .join(
        db('ranked')
          .groupBy('cluster_id')
          .select(
            'cluster_id',
            db.raw(`count(*) filter (where kind = 'IMAGE')::int as n_images`),
            db.raw(`count(*) filter (where kind = 'VIDEO_FRAME')::int as n_frames`),
            db.raw('count(distinct parent_id)::int as n_videos'),
          )
          .as('c'),
        'c.cluster_id',
        'o.cluster_id',
      )
      .select('o.cluster_id', 'c.n_images', 'c.n_frames', 'c.n_videos', 'o.size', 'o.relevance');
    query = db
      .with('matching', matching)
      .with('ordered', ordered)
      .with('members', members)
      .with('ranked', ranked)
      // Computed once: inlined, the planner took the page's counts for a few rows and counted them again for each preview (6 s at 1M).
      .withMaterialized('page', page);
  }

  const rows = await query
    // Its limit holds every preview of a page; it tells the planner how few they are, which otherwise read every media
    // row of the version to join a few hundred of them (50 ms at 100,000 media).
    .with('shown', db('ranked').where('rank', '<=', PREVIEWS_PER_CLUSTER).limit(CLUSTERS_PER_PAGE * PREVIEWS_PER_CLUSTER).select('*'))
    .from('page')
    .join('shown as ranked', 'ranked.cluster_id', 'page.cluster_id')
    .join('media as m', 'm.id', 'ranked.id')
    .where('m.version_id', options.versionId)
    .select(
      'page.cluster_id',
      'page.relevance',
      'page.n_images',
      'page.n_frames',
      'page.n_videos',
      'page.size',
      db.raw(`json_build_object(
        'id', m.id, 'kind', m.kind, 'file_name', m.file_name, 'caption', m.caption, 'width', m.width,
        'height', m.height, 'thumb_sha256', m.thumb_sha256, 'relevance', ranked.distance,
        'labels', (SELECT array_agg(l.label ORDER BY l.label) FROM media_labels l WHERE l.version_id = m.version_id AND l.media_id = m.id),
        'class', ${MEDIA_CLASS_SQL}, 'tags', ${PREVIEW_TAGS_SQL}) AS preview`),
    )
    .orderBy([
      { column: 'page.relevance', order: 'asc' },
      { column: 'page.size', order: 'desc' },
      { column: 'page.cluster_id' },
      { column: 'ranked.rank' },
    ]);

  return clustersOfRows(rows, 'IMAGES');
}

/** The SQL of each relevance key in an objects query: the object itself, or the image it is in. */
const OBJECT_RELEVANCE_COLUMNS = { object_id: 'o.id', id: 'm.id', caption_key: 'm.caption_key', concept_key: 'm.concept_key' } as const;

/**
 * One page of a version's object clusters at `threshold` (objects are clustered by their crop
 * embeddings at enrichment): a labels filter selects objects by their own label, every other filter
 * applies to the image an object is in; biggest clusters first, or nearest first when ranked.
 */
export async function exploreObjectClusters(
  db: Db,
  options: { versionId: string; threshold: number; page: number; filters: MediaFilter[]; relevance?: Relevance },
): Promise<ExploreCluster[]> {
  const matching = db('media_objects as o')
    .join('media as m', (join) => join.on('m.version_id', 'o.version_id').andOn('m.id', 'o.media_id'))
    .where('o.version_id', options.versionId)
    .whereNotNull('o.cluster_ids')
    .select(db.raw('o.cluster_ids[?] AS cluster_id', [options.threshold + 1]), 'o.id as object_id', 'o.media_id', 'o.confidence');
  if (options.relevance) {
    joinRelevance(matching, db, options.relevance, (key) => OBJECT_RELEVANCE_COLUMNS[key]);
  } else {
    matching.select(db.raw('NULL::real AS distance'));
  }
  for (const filter of options.filters) {
    if (filter.kind === 'labels') matching.whereIn('o.label', filter.anyOf);
    else applyFilter(matching, db, filter);
  }
  const page = db('matching')
    .groupBy('cluster_id')
    .select('cluster_id', db.raw('count(*)::int AS n_objects'), db.raw('count(DISTINCT media_id)::int AS n_images'), db.raw('min(distance) AS relevance'))
    .orderBy([{ column: 'relevance', order: 'asc' }, { column: 'n_objects', order: 'desc' }, { column: 'cluster_id' }])
    .limit(CLUSTERS_PER_PAGE)
    .offset(options.page * CLUSTERS_PER_PAGE);
  const ranked = db('matching')
    .whereIn('cluster_id', db('page').select('cluster_id'))
    .select('*', db.raw('row_number() OVER (PARTITION BY cluster_id ORDER BY distance ASC NULLS LAST, confidence DESC, object_id) AS rank'));
  const rows = await db
    .with('matching', matching)
    .with('page', page)
    .with('ranked', ranked)
    .from('page')
    .join('ranked', 'ranked.cluster_id', 'page.cluster_id')
    .join('media_objects as o', (join) => join.on('o.id', 'ranked.object_id').andOnVal('o.version_id', options.versionId))
    .join('media as m', (join) => join.on('m.id', 'o.media_id').andOn('m.version_id', 'o.version_id'))
    .where('ranked.rank', '<=', PREVIEWS_PER_CLUSTER)
    .select(
      'page.*',
      db.raw(`json_build_object(
        'id', m.id, 'kind', m.kind, 'file_name', m.file_name, 'caption', coalesce(o.caption, o.label), 'width', m.width,
        'height', m.height, 'thumb_sha256', m.thumb_sha256, 'relevance', ranked.distance, 'labels', ARRAY[o.label],
        'bounding_box', json_build_object('x', o.box_x, 'y', o.box_y, 'width', o.box_width, 'height', o.box_height),
        'class', ${MEDIA_CLASS_SQL}, 'tags', ${PREVIEW_TAGS_SQL}) AS preview`),
    )
    .orderBy([
      { column: 'page.relevance', order: 'asc' },
      { column: 'page.n_objects', order: 'desc' },
      { column: 'page.cluster_id' },
      { column: 'ranked.rank' },
    ]);
  return clustersOfRows(rows, 'OBJECTS');
}

/** A page of an image cluster's members of the version (images and video frames), most unique first; undefined when the version has no such cluster. */
export async function clusterMembersPage(
  db: Db,
  versionId: string,
  clusterId: string,
  page: { offset: number; limit: number },
): Promise<{ threshold: number; total: number; members: PreviewRow[] } | undefined> {
  const cluster = await db('clusters').where({ clustering_id: clusteringOf(db, versionId), id: clusterId, entity_type: 'IMAGES' }).first('threshold', 'size');
  if (!cluster) return undefined;
  const members: PreviewRow[] = await db('cluster_members as cm')
    .join('media as m', (join) => join.onVal('m.version_id', versionId).andOn('m.id', 'cm.media_id'))
    .where({ 'cm.clustering_id': clusteringOf(db, versionId), 'cm.cluster_id': clusterId })
    .orderByRaw(MOST_UNIQUE_FIRST)
    .offset(page.offset)
    .limit(page.limit)
    .select(
      'm.id',
      'm.kind',
      'm.file_name',
      'm.caption',
      'm.width',
      'm.height',
      'm.thumb_sha256',
      db.raw('NULL::text[] AS labels'),
      db.raw(`${MEDIA_CLASS_SQL} AS class`),
      db.raw(`${PREVIEW_TAGS_SQL} AS tags`),
      db.raw('NULL::real AS relevance'),
    );
  return { threshold: cluster.threshold, total: cluster.size, members };
}
