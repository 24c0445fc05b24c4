import type { Knex } from 'knex';

/** Query images uploaded for visual search: their embedding, referenced by anchor_media_id. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('search_anchors', (t) => {
    t.uuid('id').primary();
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('blob_sha256').notNullable();
    t.jsonb('bounding_box');
    t.binary('vector').notNullable();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index('dataset_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('search_anchors');
}
