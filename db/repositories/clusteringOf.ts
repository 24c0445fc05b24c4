import type { Db } from '../connection';

/**
 * The clustering a version reads, as a subquery taking the version id as its binding: copies of a
 * version share its clusters and memberships (migration 20261203300000) until one of them changes
 * them (clusters.ts ownClustering).
 */
export const CLUSTERING_OF = '(SELECT clustering_id FROM dataset_versions WHERE id = ?)';

/** CLUSTERING_OF for `versionId`, as a value a query builder compares a clustering_id column with. */
export const clusteringOf = (db: Db, versionId: string) => db.raw(CLUSTERING_OF, [versionId]);
