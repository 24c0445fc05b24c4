import type { Knex } from 'knex';

/**
 * The caption and concept keys' indexes carry what a ranked Explore page needs of each hit (its id, kind, video and
 * uniqueness), so a page finds its clusters' hits in the index alone instead of reading the media rows of every
 * member of its clusters.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX media_version_caption_key;
    CREATE INDEX media_version_caption_key ON media (version_id, caption_key) INCLUDE (id, kind, parent_id, uniqueness_score)
      WHERE caption_key IS NOT NULL;
    DROP INDEX media_version_concept_key;
    CREATE INDEX media_version_concept_key ON media (version_id, concept_key) INCLUDE (id, kind, parent_id, uniqueness_score)
      WHERE concept_key IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX media_version_caption_key;
    CREATE INDEX media_version_caption_key ON media (version_id, caption_key) WHERE caption_key IS NOT NULL;
    DROP INDEX media_version_concept_key;
    CREATE INDEX media_version_concept_key ON media (version_id, concept_key) WHERE concept_key IS NOT NULL;
  `);
}
