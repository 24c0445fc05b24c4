import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('saved_views', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.uuid('created_by').notNullable().references('users.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.jsonb('filters').notNullable();
    t.jsonb('stats').notNullable().defaultTo(JSON.stringify({ n_images: -1, n_objects: -1, n_video_frames: -1 }));
    t.boolean('monitoring_enabled').notNullable().defaultTo(true);
    t.timestamp('monitoring_started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.boolean('alerting_enabled').notNullable().defaultTo(true);
    t.integer('total_results').notNullable().defaultTo(0);
    t.timestamp('last_results', { useTz: true });
    t.unique(['dataset_id', 'name']);
  });
  await knex.schema.createTable('view_trend_points', (t) => {
    t.uuid('view_id').notNullable().references('saved_views.id').onDelete('CASCADE');
    t.uuid('batch_id').notNullable();
    t.timestamp('timestamp', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('count').notNullable();
    t.integer('cumulative').notNullable();
    t.primary(['view_id', 'batch_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('view_trend_points');
  await knex.schema.dropTableIfExists('saved_views');
}
