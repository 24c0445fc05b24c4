import type { Db } from '../connection';

/**
 * Which writes an answer depends on (migration 20261218400000): `clustered`, an image page without ranking, reads
 * clustered media only, so writes that only add or mark media not clustered yet leave it; `every` is every other answer.
 */
export type ExploreScope = 'every' | 'clustered';

/**
 * The generations of what Explore reads (migrations 20261218100000 and 20261218400000): each grows with each commit
 * that wrote rows of its scope, and only then, so two equal readings mean nothing of that scope changed between them.
 */
export async function exploreGenerations(db: Db): Promise<Record<ExploreScope, bigint>> {
  const { rows } = await db.raw('SELECT coalesce(sum(n), 0)::text AS every, coalesce(sum(n_clustered), 0)::text AS clustered FROM explore_changes');
  return { every: BigInt(rows[0].every), clustered: BigInt(rows[0].clustered) };
}
