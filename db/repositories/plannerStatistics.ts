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
