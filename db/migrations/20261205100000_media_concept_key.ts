import type { Knex } from 'knex';

/**
 * Media by concept vector, as by caption (media_version_caption_key): a ranked Explore page finds the
 * media of its nearest hits through the index instead of reading every media row of the version.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX media_version_concept_key ON media (version_id, concept_key) WHERE concept_key IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX media_version_concept_key');
}
