import type { Db } from '../connection';

/** The tables Explore, search and the map read, which a task's steps fill in bulk. */
const EXPLORED_TABLES = ['media', 'clusters', 'cluster_members', 'media_issues', 'media_labels', 'media_tags', 'media_objects', 'map_points', 'cluster_facet_counts'];

/**
 * Fresh planner statistics for the explored tables. ANALYZE reads a fixed-size sample (30,000 rows
 * a table at the default statistics target), so its cost does not grow with the table. It waits
 * at most `lockWaitMs` for a VACUUM holding a table, and then fails.
 */
export async function analyzeExploredTables(db: Db, lockWaitMs = 5000): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw(`SET LOCAL lock_timeout = ${Math.round(lockWaitMs)}`);
    await trx.raw(`ANALYZE ${EXPLORED_TABLES.join(', ')}`);
  });
}

/**
 * Marks the media rows a task rewrote visible to every transaction, as autovacuum would minutes later: until then
 * the caption and concept keys' indexes cannot answer a ranked Explore page alone (docs/decisions.md, "Ranked pages
 * read their hits from the caption and concept keys' indexes"). It reads only the pages changed since the last
 * vacuum (about 2 s after an analysis rewrote 1,000,000 rows), skips the table while another vacuum holds it, and
 * stops after `timeoutMs`, leaving the rest to autovacuum.
 */
export async function vacuumMedia(db: Db, timeoutMs: number): Promise<void> {
  // VACUUM cannot run in a transaction, where SET LOCAL would bound it: the limit is set on one connection, then reset.
  const connection = await db.client.acquireConnection();
  try {
    await connection.query(`SET statement_timeout = ${Math.round(timeoutMs)}`);
    await connection.query('VACUUM (SKIP_LOCKED) media');
  } finally {
    await connection.query('RESET statement_timeout').catch(() => undefined);
    await db.client.releaseConnection(connection);
  }
}
