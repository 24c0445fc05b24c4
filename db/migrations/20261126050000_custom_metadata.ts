import type { Knex } from 'knex';

/** Arbitrary per-media fields imported by CUSTOM_METADATA tasks. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('media', (t) => {
    t.jsonb('custom_metadata');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('media', (t) => t.dropColumn('custom_metadata'));
}
