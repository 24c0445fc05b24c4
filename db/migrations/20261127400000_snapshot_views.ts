import type { Knex } from 'knex';

/** A snapshot keeps the dataset's saved views (their definitions) as they were; a restore brings them back, a clone copies them. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('snapshots', (t) => {
    t.jsonb('views').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('snapshots', (t) => t.dropColumn('views'));
}
