import type { Knex } from 'knex';

/** Captions are embedded for semantic search; a changed caption needs embedding again. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('media', (t) => {
    t.boolean('caption_embedded').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('media', (t) => t.dropColumn('caption_embedded'));
}
