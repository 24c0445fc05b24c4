import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('upload_transactions', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('OPEN');
    t.uuid('created_by').notNullable().references('users.id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index('dataset_id');
  });
  await knex.raw(`ALTER TABLE upload_transactions ADD CONSTRAINT upload_transactions_status_valid
    CHECK (status IN ('OPEN', 'PROCESSING'))`);

  await knex.schema.createTable('uploaded_files', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.bigInteger('transaction_id').notNullable().references('upload_transactions.id').onDelete('CASCADE');
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('file_name').notNullable();
    t.text('media_kind').notNullable();
    t.text('blob_sha256').notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Re-sending a file (e.g. after a dropped connection) replaces it instead of duplicating it.
    t.unique(['transaction_id', 'file_name']);
  });
  await knex.raw(`ALTER TABLE uploaded_files ADD CONSTRAINT uploaded_files_kind_valid CHECK (media_kind IN ('IMAGE', 'VIDEO'))`);

  await knex.schema.createTable('media', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.uuid('parent_id').references('media.id').onDelete('CASCADE');
    t.uuid('uploaded_file_id').references('uploaded_files.id').onDelete('SET NULL');
    t.uuid('batch_id').notNullable();
    t.text('file_name').notNullable();
    t.text('blob_sha256').notNullable();
    t.text('thumb_sha256');
    t.bigInteger('size_bytes');
    t.text('format');
    t.integer('width');
    t.integer('height');
    t.integer('frame_index');
    t.integer('frame_time_ms');
    t.integer('duration_ms');
    t.float('mean_luma');
    t.float('sharpness');
    t.float('uniqueness_score');
    t.boolean('embedded').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['dataset_id', 'kind']);
    t.index('parent_id');
  });
  await knex.raw(`ALTER TABLE media ADD CONSTRAINT media_kind_valid CHECK (kind IN ('IMAGE', 'VIDEO', 'VIDEO_FRAME'))`);
  // One media row per uploaded file (and per frame of a video): re-running ingestion never duplicates.
  await knex.raw(`CREATE UNIQUE INDEX media_uploaded_file_frame ON media (uploaded_file_id, frame_index) NULLS NOT DISTINCT
    WHERE uploaded_file_id IS NOT NULL`);

  await knex.schema.createTable('media_issues', (t) => {
    t.uuid('media_id').notNullable().references('media.id').onDelete('CASCADE');
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('issue_type').notNullable();
    t.float('confidence').notNullable();
    t.jsonb('details');
    t.primary(['media_id', 'issue_type']);
    t.index(['dataset_id', 'issue_type']);
  });
  await knex.raw(`ALTER TABLE media_issues ADD CONSTRAINT media_issues_type_valid
    CHECK (issue_type IN ('duplicates', 'outliers', 'blur', 'dark', 'bright', 'broken'))`);

  await knex.schema.createTable('clusters', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.smallint('threshold').notNullable();
    t.text('entity_type').notNullable().defaultTo('IMAGES');
    t.integer('n_images').notNullable();
    t.integer('n_videos').notNullable();
    t.integer('n_frames').notNullable();
    t.integer('size').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['dataset_id', 'threshold', 'size']);
  });

  await knex.schema.createTable('cluster_members', (t) => {
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.smallint('threshold').notNullable();
    t.uuid('media_id').notNullable().references('media.id').onDelete('CASCADE');
    t.uuid('cluster_id').notNullable().references('clusters.id').onDelete('CASCADE');
    t.primary(['dataset_id', 'threshold', 'media_id']);
    t.index('cluster_id');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['cluster_members', 'clusters', 'media_issues', 'media', 'uploaded_files', 'upload_transactions']) {
    await knex.schema.dropTableIfExists(table);
  }
}
