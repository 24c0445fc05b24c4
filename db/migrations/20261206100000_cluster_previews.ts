import type { Knex } from 'knex';

/**
 * Each cluster keeps its previews (clusters.ts refreshExploreCopies): a plain Explore page read every member of its
 * clusters to rank them by uniqueness, 105,502 media rows for the first page at 1,000,000 media. Existing
 * clusterings get theirs here, from the media of a version that reads them (the statement is this migration's own,
 * so that it stays what it was when refreshExploreCopies changes).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE clusters ADD COLUMN previews uuid[]');
  // Every membership is read: joined by hashing, whatever the statistics say (as refreshExploreCopies does).
  await knex.raw('SET LOCAL enable_nestloop = off');
  await knex.raw(`UPDATE clusters c SET previews = p.ids
    FROM (SELECT clustering_id, cluster_id, array_agg(id ORDER BY rank) AS ids
          FROM (SELECT cm.clustering_id, cm.cluster_id, cm.media_id AS id,
                       row_number() OVER (PARTITION BY cm.clustering_id, cm.cluster_id ORDER BY m.uniqueness_score DESC NULLS LAST, m.id) AS rank
                FROM cluster_members cm
                JOIN (SELECT DISTINCT ON (clustering_id) clustering_id, id FROM dataset_versions ORDER BY clustering_id, id) reader
                  ON reader.clustering_id = cm.clustering_id
                JOIN media m ON m.version_id = reader.id AND m.id = cm.media_id) ranked
          WHERE rank <= 10 GROUP BY clustering_id, cluster_id) p
    WHERE c.clustering_id = p.clustering_id AND c.id = p.cluster_id`);
  await knex.raw('SET LOCAL enable_nestloop TO DEFAULT');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE clusters DROP COLUMN previews');
}
