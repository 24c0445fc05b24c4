import type { Client } from 'pg';
import type { EmbeddedPostgres } from '../../lib/embedded/postgres';
import { withClient } from './common';

// Where Postgres's time went, by statement (pg_stat_statements, loaded by the bench's own Postgres).

/** What a statement does, told by a fragment only it has; the first match wins. */
const KINDS: Array<[RegExp, string]> = [
  [/vector_collections/, 'vector index catch-up'],
  [/from "vector_points"/, 'vector of the anchor media'],
  [/dataset_members/, 'dataset access'],
  [/explore_changes/, 'explore: answers generation'],
  // Of some clusters (a batch's, in its transaction) or of a whole version (a task's end, or a batch's many tiers).
  [/(INSERT INTO cluster_facet_counts|delete from "cluster_facet_counts").*cluster_id = ANY/s, 'facet count refresh: clusters'],
  [/INSERT INTO cluster_facet_counts|delete from "cluster_facet_counts"/, 'facet count refresh: whole version'],
  [/unnest\(.*m\.caption_key/s, 'explore: caption ranking'],
  [/caption_tsv/, 'explore: vql fts'],
  [/uniqueness_score" >=/, 'explore: vql uniqueness'],
  [/"i"\."issue_type" =/, 'explore: vql issues'],
  [/"l"\."label" in/, 'explore: vql labels (and tags)'],
  // The filters above come first: their pages may also read stored counts or walk the clusters.
  [/unnest\(\$\d+::uuid\[\], \$\d+::real\[\]\)/, 'explore: visual ranking'],
  [/cluster_facet_counts/, 'explore: page from facet counts'],
  [/unnest\(page\.previews\)/, 'explore: plain page'],
  [/from "clusters"/, 'explore: clusters by size'],
];

export interface StatementRow {
  kind: string;
  calls: number;
  total_ms: number;
  mean_ms: number;
  /** Share of the time of every statement on the database. */
  pct: number;
}

/**
 * `postgres` with pg_stat_statements loaded: as it is if it was started with it, else restarted by `start` once the
 * setting is made (its library loads only at start; ALTER SYSTEM keeps the setting in the data directory).
 */
export async function withStatementStatsLoaded(postgres: EmbeddedPostgres, start: () => Promise<EmbeddedPostgres>): Promise<EmbeddedPostgres> {
  const loaded = await withClient(postgres.url, async (client) => {
    const { rows } = await client.query<{ libraries: string }>(`SELECT current_setting('shared_preload_libraries') AS libraries`);
    return rows[0].libraries.split(',').some((name) => name.trim() === 'pg_stat_statements');
  });
  if (loaded) return postgres;
  await withClient(postgres.url, (client) => client.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`));
  await postgres.stop();
  return start();
}

/** A statement of Explore's load by what it does (KINDS), others by their text's start. */
const exploreKind = (query: string): string => KINDS.find(([pattern]) => pattern.test(query))?.[1] ?? `other: ${statementText(query, 60)}`;

/** A statement by the first `length` characters of its text. */
export const statementText = (query: string, length = 100): string => query.replace(/\s+/g, ' ').slice(0, length);

export async function resetStatementStats(client: Client): Promise<void> {
  await client.query('SELECT pg_stat_statements_reset()');
}

/** Statements on `database` since the last reset, grouped by `kindOf`, most time first. */
export async function statementStats(client: Client, database: string, kindOf: (query: string) => string = exploreKind): Promise<StatementRow[]> {
  const { rows } = await client.query<{ query: string; calls: string; total: number }>(
    `SELECT query, calls, total_exec_time AS total FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)`,
    [database],
  );
  const byKind = new Map<string, { calls: number; total: number }>();
  for (const row of rows) {
    const kind = kindOf(row.query);
    const entry = byKind.get(kind) ?? { calls: 0, total: 0 };
    entry.calls += Number(row.calls);
    entry.total += row.total;
    byKind.set(kind, entry);
  }
  const all = [...byKind.values()].reduce((sum, entry) => sum + entry.total, 0);
  return [...byKind]
    .sort((a, b) => b[1].total - a[1].total)
    .slice(0, 15)
    .map(([kind, { calls, total }]) => ({
      kind,
      calls,
      total_ms: Math.round(total),
      mean_ms: Math.round((10 * total) / calls) / 10,
      pct: Math.round((1000 * total) / all) / 10,
    }));
}
