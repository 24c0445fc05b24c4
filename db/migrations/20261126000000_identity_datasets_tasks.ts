import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organizations', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true });
  });

  await knex.schema.createTable('workspaces', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true });
    t.index('organization_id');
  });

  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable().unique();
    t.text('username').notNullable().unique();
    t.text('first_name');
    t.text('last_name');
    t.text('password_hash');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.specificType('realm_roles', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true });
  });
  await knex.raw('ALTER TABLE users ADD CONSTRAINT users_email_lowercase CHECK (email = lower(email))');

  await knex.schema.createTable('workspace_members', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.enu('role', ['admin', 'editor', 'viewer']).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['workspace_id', 'user_id']);
    t.index('user_id');
  });

  await knex.schema.createTable('sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.text('ip_address');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_access_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index('user_id');
  });

  await knex.schema.createTable('api_credentials', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('api_key').notNullable().unique();
    // The HS256 key must be recoverable to verify tokens, so it is encrypted (AES-256-GCM), not hashed.
    t.text('secret_ciphertext').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index('user_id');
  });

  await knex.schema.createTable('datasets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id');
    t.text('display_name').notNullable();
    t.text('status_new').notNullable();
    t.integer('progress').notNullable().defaultTo(0);
    t.uuid('owner_id').notNullable().references('users.id');
    t.integer('n_images').notNullable().defaultTo(0);
    t.integer('n_videos').notNullable().defaultTo(0);
    t.jsonb('embedding_config');
    t.text('error_message');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at']);
    t.index('owner_id');
  });
  await knex.raw(`ALTER TABLE datasets ADD CONSTRAINT datasets_status_new_valid
    CHECK (status_new IN ('UPLOADING', 'INDEXING', 'READY', 'READ ONLY', 'PARTIAL INDEX', 'ERROR'))`);
  await knex.raw('ALTER TABLE datasets ADD CONSTRAINT datasets_progress_range CHECK (progress BETWEEN 0 AND 100)');

  await knex.schema.createTable('dataset_members', (t) => {
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.enu('role', ['owner', 'editor', 'viewer']).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['dataset_id', 'user_id']);
    t.index('user_id');
  });

  await knex.schema.createTable('tasks', (t) => {
    t.uuid('task_id').primary();
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.text('task_type').notNullable();
    t.text('status').notNullable();
    t.text('status_message').notNullable().defaultTo('');
    t.integer('progress_percentage');
    t.text('error_message');
    t.uuid('created_by').notNullable().references('users.id');
    // Workflow input, kept so a retry starts the same workflow id with the same configuration.
    t.jsonb('input').notNullable().defaultTo('{}');
    t.text('phase');
    t.timestamp('start_time', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('end_time', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['dataset_id', 'start_time']);
    t.index('start_time');
    t.index(['created_by', 'start_time']);
  });
  await knex.raw(`ALTER TABLE tasks ADD CONSTRAINT tasks_type_valid CHECK (task_type IN
    ('DATASET_CREATION', 'MEDIA_ADDITION', 'REINDEX', 'ENRICHMENT', 'CUSTOM_METADATA', 'SNAPSHOT_RESTORE', 'SNAPSHOT_CLONE'))`);
  await knex.raw(`ALTER TABLE tasks ADD CONSTRAINT tasks_status_valid CHECK (status IN
    ('INITIALIZING', 'RUNNING', 'COMPLETED', 'FAILED', 'ABORTED'))`);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'tasks',
    'dataset_members',
    'datasets',
    'api_credentials',
    'sessions',
    'workspace_members',
    'users',
    'workspaces',
    'organizations',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
