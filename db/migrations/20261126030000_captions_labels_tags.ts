import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('media', (t) => {
    t.text('caption');
  });
  await knex.raw(`ALTER TABLE media ADD COLUMN caption_tsv tsvector
    GENERATED ALWAYS AS (to_tsvector('english', coalesce(caption, ''))) STORED`);
  await knex.raw('CREATE INDEX media_caption_tsv ON media USING GIN (caption_tsv)');

  await knex.schema.createTable('media_labels', (t) => {
    t.uuid('media_id').notNullable().references('media.id').onDelete('CASCADE');
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('label').notNullable();
    t.text('source').notNullable();
    t.float('confidence');
    t.primary(['media_id', 'label']);
    t.index(['dataset_id', 'label']);
  });

  await knex.schema.createTable('tags', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['dataset_id', 'name']);
  });

  await knex.schema.createTable('media_tags', (t) => {
    t.uuid('media_id').notNullable().references('media.id').onDelete('CASCADE');
    t.uuid('tag_id').notNullable().references('tags.id').onDelete('CASCADE');
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.primary(['media_id', 'tag_id']);
    t.index(['tag_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('media_tags');
  await knex.schema.dropTableIfExists('tags');
  await knex.schema.dropTableIfExists('media_labels');
  await knex.raw('ALTER TABLE media DROP COLUMN IF EXISTS caption_tsv');
  await knex.schema.alterTable('media', (t) => t.dropColumn('caption'));
}
