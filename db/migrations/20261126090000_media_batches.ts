import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Mean and spread of the 5-nearest-neighbour similarity at the last full index: a batch added
  // later is judged for outliers against the whole dataset, not against itself.
  await knex.schema.alterTable('datasets', (t) => {
    t.jsonb('neighbour_stats');
  });
  await knex.schema.alterTable('media', (t) => {
    t.index(['dataset_id', 'batch_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('media', (t) => {
    t.dropIndex(['dataset_id', 'batch_id']);
  });
  await knex.schema.alterTable('datasets', (t) => {
    t.dropColumn('neighbour_stats');
  });
}
