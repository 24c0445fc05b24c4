import type { Knex } from 'knex';

/**
 * Who publishes a collection's index (docs/decisions.md "One worker publishes a collection's index"): a lease, so that
 * of several worker processes writing one collection only one replays every row into a whole index and saves it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE vector_collections ADD COLUMN publisher uuid, ADD COLUMN publisher_until timestamptz');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE vector_collections DROP COLUMN publisher, DROP COLUMN publisher_until');
}
