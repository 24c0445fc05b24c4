import type { Knex } from 'knex';

/**
 * Each image cluster keeps its members' uniqueness scores, negated and ascending, without NULLs (clusters.ts
 * refreshExploreCopies), so that `width_bucket(-x, negated_uniqueness)` counts its members with uniqueness ≥ x from
 * its row alone: a page filtered by uniqueness finds its clusters without reading every member (explore.ts). Existing
 * clusterings get theirs here, from the media of a version that reads them (the statement is this migration's own).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE clusters ADD COLUMN negated_uniqueness real[]');
  // Every membership is read: joined by hashing, whatever the statistics say (as refreshExploreCopies does).
  await knex.raw('SET LOCAL enable_nestloop = off');
  await knex.raw(`UPDATE clusters c SET negated_uniqueness = s.scores
    FROM (SELECT cm.clustering_id, cm.cluster_id,
                 coalesce(array_agg(-m.uniqueness_score ORDER BY m.uniqueness_score DESC) FILTER (WHERE m.uniqueness_score IS NOT NULL), '{}') AS scores
          FROM cluster_members cm
          JOIN (SELECT DISTINCT ON (clustering_id) clustering_id, id FROM dataset_versions ORDER BY clustering_id, id) reader
            ON reader.clustering_id = cm.clustering_id
          JOIN media m ON m.version_id = reader.id AND m.id = cm.media_id
          GROUP BY cm.clustering_id, cm.cluster_id) s
    WHERE c.clustering_id = s.clustering_id AND c.id = s.cluster_id`);
  await knex.raw('SET LOCAL enable_nestloop TO DEFAULT');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE clusters DROP COLUMN negated_uniqueness');
}
