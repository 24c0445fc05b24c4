import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import type { Db } from '../connection';
import { uuidRanges, type UuidRange } from '../../lib/uuidRanges';
import type { LabelQualityReport } from '../../lib/quality/labelQuality';
import type { NeighbourStats } from '../../lib/quality/neighbourScores';
import { deleteFacetCounts } from './clusterFacets';
import { releaseClusterings } from './clusters';
import { recordVersionCandidates } from './storageRelease';

export interface DatasetVersion {
  id: string;
  dataset_id: string;
  parent_version_id: string | null;
  /** The dataset whose vector collections this version reads (copies share their source's). */
  vector_space_id: string;
  reason: 'initial' | 'copy';
  neighbour_stats: NeighbourStats | null;
  /** Enrichment type → model id of every enrichment applied to this version's data. */
  enrichment_models: Record<string, string>;
  /** The clusters and memberships this version reads; copies share it until one changes it (db/repositories/clusters.ts ownClustering). */
  clustering_id: string;
  /** The full map layout this version's map points belong to (null before the first). */
  map_layout_id: string | null;
  /** The layout id the version's next layout gets while one is due (an analysis committed without laying the map out). */
  map_due: string | null;
  /** The MAP_LAYOUT task laying the due layout out. */
  map_task_id: string | null;
  /** The last label-quality check of this version (with the fields it read), null before one. */
  label_quality: LabelQualityReport | null;
  created_at: Date;
}

/**
 * Tables whose rows belong to a version, parents before children (the order a copy inserts in).
 * Every one is keyed by (version_id, …), so a copied row keeps its ids. Clusters and memberships
 * are not among them: they belong to a clustering that copies share (CLUSTERING_TABLES).
 */
export const VERSION_TABLES = [
  'media',
  'tags',
  'media_issues',
  'media_labels',
  'media_objects',
  'media_tags',
  'duplicate_decisions',
  'map_points',
] as const;
export type VersionTable = (typeof VERSION_TABLES)[number];

/** Tables keyed by (clustering_id, …): a version reads those of its clustering_id. */
export const CLUSTERING_TABLES = ['clusters', 'cluster_members'] as const;

/** The first version of a new dataset: it owns the dataset's own vector collections. */
export async function createInitialVersion(db: Db, datasetId: string): Promise<string> {
  // Its first clustering is keyed by its own id, as every version's was before clusterings were shared.
  const id = randomUUID();
  const [row] = await db('dataset_versions').insert({ id, clustering_id: id, dataset_id: datasetId, vector_space_id: datasetId, reason: 'initial' }).returning('id');
  await db('datasets').where({ id: datasetId }).update({ head_version_id: row.id });
  return row.id;
}

export async function findVersion(db: Db, versionId: string): Promise<DatasetVersion | undefined> {
  return db('dataset_versions').where({ id: versionId }).first();
}

/** The version a dataset's reads and writes go to. */
export async function headVersion(db: Db, datasetId: string): Promise<DatasetVersion> {
  const version = await db('dataset_versions as v').join('datasets as d', 'd.head_version_id', 'v.id').where('d.id', datasetId).first('v.*');
  if (!version) throw new Error(`dataset ${datasetId} has no head version`);
  return version;
}

export async function setHeadVersion(db: Db, datasetId: string, versionId: string): Promise<void> {
  await db('datasets').where({ id: datasetId }).update({ head_version_id: versionId, updated_at: db.fn.now() });
}

export async function setNeighbourStats(db: Db, versionId: string, stats: NeighbourStats): Promise<void> {
  await db('dataset_versions').where({ id: versionId }).update({ neighbour_stats: JSON.stringify(stats) });
}

/** Columns a copy carries over: all but the version key and the generated ones. */
async function copiedColumns(db: Db, table: VersionTable): Promise<string[]> {
  const rows: Array<{ column_name: string }> = await db('information_schema.columns')
    .where({ table_schema: db.raw('current_schema()'), table_name: table, is_generated: 'NEVER' })
    .whereNot('column_name', 'version_id')
    .orderBy('ordinal_position')
    .select('column_name');
  return rows.map((row) => row.column_name);
}

/**
 * An empty version `versionId` of `datasetId` that will receive a copy of `source`; it shares the
 * source's vectors and clustering. False when that version exists already (a repeated copy).
 */
export async function createCopyVersion(db: Db, source: DatasetVersion, datasetId: string, versionId: string): Promise<boolean> {
  const rows = await db('dataset_versions')
    .insert({
      id: versionId,
      dataset_id: datasetId,
      parent_version_id: source.id,
      vector_space_id: source.vector_space_id,
      reason: 'copy',
      neighbour_stats: source.neighbour_stats ? JSON.stringify(source.neighbour_stats) : null,
      enrichment_models: JSON.stringify(source.enrichment_models ?? {}),
      map_layout_id: source.map_layout_id,
      // A copy made while the map is due gets the layout with the source (db/repositories/mapPoints.ts writeDueMap).
      map_due: source.map_due,
      map_task_id: source.map_task_id,
      clustering_id: source.clustering_id,
      label_quality: source.label_quality ? JSON.stringify(source.label_quality) : null,
    })
    .onConflict('id')
    .ignore()
    .returning('id');
  return rows.length === 1;
}

/** Media a copy statement moves at most (about: ranges split random ids evenly), so no statement grows with the version. */
const COPY_RANGE_MEDIA = 50_000;

/**
 * How long one statement of a copy may run, in Postgres and in the client, whatever its pool's limit: the API's
 * DATABASE_QUERY_TIMEOUT_SECONDS (15 s) is for reads and small writes, while a copy statement's time grows with the
 * machine's write load as well as with its rows (7.5-14 s for 50,000 media's tags at 1,000,000 media, now and then more).
 */
export const COPY_STATEMENT_LIMIT_MS = 10 * 60_000;

/** pg's options for a copy's statement that scales with the version: held to COPY_STATEMENT_LIMIT_MS in the client too. */
export const COPY_QUERY_OPTIONS = { query_timeout: COPY_STATEMENT_LIMIT_MS + 2000 };

function copyStatement<T extends Knex.ChainableInterface>(query: T): T {
  return query.options(COPY_QUERY_OPTIONS);
}

/** The key column after version_id in a version-owned table's primary key (a media id, or a tag's own id): what a copy splits the rows on. */
async function rangeColumn(db: Db, table: VersionTable): Promise<string> {
  const { rows } = await db.raw(
    `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[1]
     WHERE i.indrelid = ?::regclass AND i.indisprimary`,
    [table],
  );
  return rows[0].attname;
}

/**
 * Copies every row of one version-owned table from `fromVersionId` to `toVersionId`, one INSERT …
 * SELECT per range of keys (`ranges`), so no statement grows with the version; ids are kept, no
 * media bytes or vectors are touched. Returns the rows copied.
 */
async function copyVersionTable(
  db: Db,
  table: VersionTable,
  fromVersionId: string,
  toVersionId: string,
  ranges: UuidRange[],
): Promise<number> {
  const columns = (await copiedColumns(db, table)).map((column) => `"${column}"`).join(', ');
  const key = await rangeColumn(db, table);
  // A frame names its video by a foreign key checked at once: every video (and image) goes before any frame.
  const passes = table === 'media' ? ['parent_id IS NULL', 'parent_id IS NOT NULL'] : ['true'];
  let copied = 0;
  for (const pass of passes) {
    for (const range of ranges) {
      const result = await copyStatement(
        db.raw(
          `INSERT INTO ${table} (version_id, ${columns}) SELECT ?, ${columns} FROM ${table}
           WHERE version_id = ? AND ${pass} AND "${key}" >= ?${range.to === null ? '' : ` AND "${key}" < ?`}`,
          [toVersionId, fromVersionId, range.from, ...(range.to === null ? [] : [range.to])],
        ),
      );
      copied += result.rowCount ?? 0;
    }
  }
  return copied;
}

/**
 * Copies every row of `source` into a new version `versionId` of `datasetId`, inside the caller's
 * transaction; the clustering is shared, not copied. Ids are kept; no media bytes or vectors are
 * touched. Returns the rows copied per table, none when version `versionId` exists already (a repeated copy).
 */
export async function copyVersionIn(
  trx: Db,
  source: DatasetVersion,
  datasetId: string,
  versionId: string,
  onTable: (table: VersionTable) => void = () => undefined,
  rangeMedia = COPY_RANGE_MEDIA,
): Promise<Partial<Record<VersionTable, number>>> {
  const rows: Partial<Record<VersionTable, number>> = {};
  if (!(await createCopyVersion(trx, source, datasetId, versionId))) return rows;
  const media = Number((await copyStatement(trx('media').where({ version_id: source.id }).count({ n: '*' }).first()))!.n);
  const ranges = uuidRanges(Math.max(1, Math.ceil(media / rangeMedia)));
  for (const table of VERSION_TABLES) {
    onTable(table);
    rows[table] = await copyVersionTable(trx, table, source.id, versionId, ranges);
  }
  return rows;
}

/** Times a snapshot transaction is run when a serialization failure rolls it back. */
const SNAPSHOT_TRANSACTION_ATTEMPTS = 3;

/**
 * Runs `fn` in one transaction that sees one snapshot of the data, as a copy must (a tag and its uses come whole or
 * not at all), its statements held to COPY_STATEMENT_LIMIT_MS in Postgres. A row it writes that another transaction
 * changed after its snapshot (the datasets row a snapshot makes current, which a background task may touch meanwhile)
 * is a serialization failure, which rolls it back: it is run again from the start, up to SNAPSHOT_TRANSACTION_ATTEMPTS
 * times in all, so `fn` must do nothing outside the transaction that cannot be done twice.
 */
export async function inSnapshotTransaction<T>(db: Db, fn: (trx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(
        async (trx) => {
          await trx.raw(`SET LOCAL statement_timeout = ${COPY_STATEMENT_LIMIT_MS}`);
          return fn(trx);
        },
        { isolationLevel: 'repeatable read' },
      );
    } catch (error) {
      if ((error as { code?: string }).code !== '40001' || attempt >= SNAPSHOT_TRANSACTION_ATTEMPTS) throw error;
    }
  }
}

/** copyVersionIn in a transaction of its own. */
export function copyVersion(
  db: Db,
  source: DatasetVersion,
  datasetId: string,
  versionId: string,
  onTable?: (table: VersionTable) => void,
  rangeMedia?: number,
): Promise<Partial<Record<VersionTable, number>>> {
  return inSnapshotTransaction(db, (trx) => copyVersionIn(trx, source, datasetId, versionId, onTable, rangeMedia));
}

/** The dataset's versions nothing uses (not the head, no snapshot's), as `v`. */
export function unusedVersions(db: Db, datasetId: string): Knex.QueryBuilder {
  return db('dataset_versions as v')
    .where('v.dataset_id', datasetId)
    .whereNotExists(db('datasets as d').whereRaw('d.head_version_id = v.id'))
    .whereNotExists(db('snapshots as s').whereRaw('s.version_id = v.id'));
}

/**
 * Removes the dataset's versions that nothing uses any more (not the head, no snapshot's), with
 * every row they own, recording what they used for the storage collector in the same transaction.
 * Safe to repeat.
 */
export async function dropUnusedVersions(db: Db, datasetId: string): Promise<number> {
  return db.transaction(async (trx): Promise<number> => {
    const unused: string[] = await unusedVersions(trx, datasetId).forUpdate().pluck('v.id');
    await recordVersionCandidates(trx, unused);
    if (unused.length === 0) return 0;
    await deleteFacetCounts(trx, unused);
    const clusterings: string[] = await trx('dataset_versions').whereIn('id', unused).distinct().pluck('clustering_id');
    const deleted = Number(await trx('dataset_versions').whereIn('id', unused).delete());
    await releaseClusterings(trx, clusterings);
    return deleted;
  });
}

/** Bytes the version-owned and clustering tables and their indexes take, for measuring what a copy adds. */
export async function versionTablesBytes(db: Db): Promise<number> {
  const row = await db
    .select(db.raw(`sum(pg_total_relation_size(t::regclass))::bigint AS bytes`))
    .from(db.raw('unnest(?::text[]) AS t', [[...VERSION_TABLES, ...CLUSTERING_TABLES, 'dataset_versions']]))
    .first();
  return Number(row.bytes);
}

export interface MediaChanges {
  count: number;
  /** The first ids, in id order (at most the limit asked for). */
  media_ids: string[];
}

export interface VersionDiff {
  added: MediaChanges;
  removed: MediaChanges;
  changed: Record<'captions' | 'labels' | 'tags' | 'issues' | 'custom_metadata', MediaChanges>;
}

/**
 * What differs between two versions, by media item (images and videos; frames go with their video):
 * added, removed, and among those in both, whose caption, labels, tags, issues or custom metadata
 * differ. Ids are shared across versions, so every part is one set comparison in SQL.
 */
export async function diffVersions(db: Db, from: string, to: string, limit: number): Promise<VersionDiff> {
  const topLevel = (version: string) => db('media').where({ version_id: version }).whereNull('parent_id').select('id');
  /** `a.id` is a media item whose set of `value`s in `table` differs between the versions. */
  const setChanged = (table: string, value: string): [string, string[]] => [
    `a.id IN (SELECT media_id FROM (
       SELECT media_id, array_agg(${value} ORDER BY ${value}) AS v FROM ${table} WHERE version_id = ? GROUP BY media_id) x
     FULL JOIN (
       SELECT media_id, array_agg(${value} ORDER BY ${value}) AS v FROM ${table} WHERE version_id = ? GROUP BY media_id) y USING (media_id)
     WHERE x.v IS DISTINCT FROM y.v)`,
    [from, to],
  ];
  const inBoth = db('media as a')
    .join('media as b', (join) => join.on('b.id', 'a.id').andOnVal('b.version_id', to))
    .where('a.version_id', from)
    .whereNull('a.parent_id');
  const parts = {
    added: db.from(topLevel(to).as('t')).whereNotIn('id', topLevel(from)),
    removed: db.from(topLevel(from).as('f')).whereNotIn('id', topLevel(to)),
    captions: inBoth.clone().whereRaw('a.caption IS DISTINCT FROM b.caption').select('a.id'),
    custom_metadata: inBoth.clone().whereRaw('a.custom_metadata IS DISTINCT FROM b.custom_metadata').select('a.id'),
    labels: inBoth.clone().whereRaw(...setChanged('media_labels', 'label')).select('a.id'),
    tags: inBoth.clone().whereRaw(...setChanged('media_tags', 'tag_id::text')).select('a.id'),
    issues: inBoth.clone().whereRaw(...setChanged('media_issues', 'issue_type')).select('a.id'),
  };
  const summarise = async (query: ReturnType<typeof db.from>): Promise<MediaChanges> => {
    const rows: Array<{ id: string; total: string }> = await db
      .from(query.as('q'))
      .select('id', db.raw('count(*) OVER () AS total'))
      .orderBy('id')
      .limit(limit);
    return { count: Number(rows[0]?.total ?? 0), media_ids: rows.map((row) => row.id) };
  };
  const [added, removed, captions, labels, tags, issues, customMetadata] = await Promise.all(
    [parts.added, parts.removed, parts.captions, parts.labels, parts.tags, parts.issues, parts.custom_metadata].map(summarise),
  );
  return { added, removed, changed: { captions, labels, tags, issues, custom_metadata: customMetadata } };
}
