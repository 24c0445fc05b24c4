import type { Knex } from 'knex';

/**
 * The caption and concept keys' indexes carry `repeat_of_frame` too: a ranked page reads it of each hit (repeated
 * frames are previewed last), and without it the hits were read from the media rows instead of these indexes alone
 * (the planner then read every media row of the version: a caption page at 100,000 media 5 → 70 ms).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX media_version_caption_key;
    CREATE INDEX media_version_caption_key ON media (version_id, caption_key) INCLUDE (id, kind, parent_id, uniqueness_score, cluster_ids, repeat_of_frame)
      WHERE caption_key IS NOT NULL;
    DROP INDEX media_version_concept_key;
    CREATE INDEX media_version_concept_key ON media (version_id, concept_key) INCLUDE (id, kind, parent_id, uniqueness_score, cluster_ids, repeat_of_frame)
      WHERE concept_key IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX media_version_caption_key;
    CREATE INDEX media_version_caption_key ON media (version_id, caption_key) INCLUDE (id, kind, parent_id, uniqueness_score, cluster_ids)
      WHERE caption_key IS NOT NULL;
    DROP INDEX media_version_concept_key;
    CREATE INDEX media_version_concept_key ON media (version_id, concept_key) INCLUDE (id, kind, parent_id, uniqueness_score, cluster_ids)
      WHERE concept_key IS NOT NULL;
  `);
}
