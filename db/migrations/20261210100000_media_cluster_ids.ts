import type { Knex } from 'knex';

/**
 * Each media row keeps its cluster at every threshold (`cluster_ids[threshold + 1]`, as media_objects does), and the
 * caption and concept keys' indexes carry it: a ranked Explore page then finds its hits and their clusters in those
 * indexes alone, without joining the hits to their memberships (110-170 ms of a caption page at 1,000,000 media).
 * Existing versions get theirs here, from their clusterings' memberships (the statement is this migration's own, so
 * that it stays what it was when clusters.ts refreshExploreCopies changes).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE media ADD COLUMN cluster_ids uuid[]');
  // Every membership is read: joined by hashing, whatever the statistics say (as refreshExploreCopies does).
  await knex.raw('SET LOCAL enable_nestloop = off');
  await knex.raw(`UPDATE media m SET cluster_ids = c.ids
    FROM (SELECT v.id AS version_id, cm.media_id,
                 ARRAY[${[0, 1, 2, 3, 4].map((t) => `(array_agg(cm.cluster_id) FILTER (WHERE cm.threshold = ${t}))[1]`).join(', ')}] AS ids
          FROM dataset_versions v JOIN cluster_members cm ON cm.clustering_id = v.clustering_id
          GROUP BY v.id, cm.media_id) c
    WHERE m.version_id = c.version_id AND m.id = c.media_id`);
  await knex.raw('SET LOCAL enable_nestloop TO DEFAULT');
  await knex.raw(`
    DROP INDEX media_version_caption_key;
    CREATE INDEX media_version_caption_key ON media (version_id, caption_key) INCLUDE (id, kind, parent_id, uniqueness_score, cluster_ids)
      WHERE caption_key IS NOT NULL;
    DROP INDEX media_version_concept_key;
    CREATE INDEX media_version_concept_key ON media (version_id, concept_key) INCLUDE (id, kind, parent_id, uniqueness_score, cluster_ids)
      WHERE concept_key IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX media_version_caption_key;
    CREATE INDEX media_version_caption_key ON media (version_id, caption_key) INCLUDE (id, kind, parent_id, uniqueness_score)
      WHERE caption_key IS NOT NULL;
    DROP INDEX media_version_concept_key;
    CREATE INDEX media_version_concept_key ON media (version_id, concept_key) INCLUDE (id, kind, parent_id, uniqueness_score)
      WHERE concept_key IS NOT NULL;
  `);
  await knex.raw('ALTER TABLE media DROP COLUMN cluster_ids');
}
