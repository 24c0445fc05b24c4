import type { Knex } from 'knex';

/** Durable storage of the embedded vector store; its usearch index under DATA_DIR is a rebuildable cache. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('vector_collections', (t) => {
    t.text('name').primary();
    t.integer('dim').notNullable();
    // Changes when a collection is dropped and made again, so cached indexes know to rebuild.
    t.uuid('generation').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
  });
  await knex.raw('CREATE SEQUENCE vector_points_seq');
  await knex.schema.createTable('vector_points', (t) => {
    t.text('collection').notNullable().references('vector_collections.name').onDelete('CASCADE');
    t.uuid('id').notNullable();
    // Every write takes a new seq; readers replay rows with seq above what their index holds.
    t.bigInteger('seq').notNullable().defaultTo(knex.raw("nextval('vector_points_seq')"));
    // Little-endian float32; NULL marks a deleted point so readers can replay the deletion.
    t.binary('vector');
    t.primary(['collection', 'id']);
    t.index(['collection', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('vector_points');
  await knex.raw('DROP SEQUENCE IF EXISTS vector_points_seq');
  await knex.schema.dropTableIfExists('vector_collections');
}
