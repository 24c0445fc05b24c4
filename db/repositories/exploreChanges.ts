import type { Db } from '../connection';

/**
 * The generation of everything Explore reads (migration 20261218100000): it grows with each commit that wrote one of
 * those tables, and only then, so two equal readings mean nothing Explore reads changed between them.
 */
export async function exploreGeneration(db: Db): Promise<string> {
  const { rows } = await db.raw('SELECT coalesce(sum(n), 0)::text AS generation FROM explore_changes');
  return rows[0].generation;
}
