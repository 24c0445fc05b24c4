import type { Knex } from 'knex';

/** The clustering threshold given at an anchor's upload, which Explore's must then match (null: none given). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('search_anchors', (t) => {
    t.smallint('threshold');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('search_anchors', (t) => {
    t.dropColumn('threshold');
  });
}
