import type { Knex } from 'knex';

/**
 * Snapshots: a named, frozen copy of a dataset's head version. Restore copies a snapshot's version
 * into a new head; clone copies it into a new dataset. Deleting one hides it (soft delete).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('snapshots', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    // The frozen copy; never written after the snapshot is taken.
    t.uuid('version_id').notNullable().references('dataset_versions.id');
    t.text('name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('reason').notNullable();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.text('source_dataset_name').notNullable();
    // What the dataset was when the snapshot was taken; a restore gives it back.
    t.text('dataset_status').notNullable();
    t.integer('n_images').notNullable();
    t.integer('n_videos').notNullable();
    t.uuid('restoring_task_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.index(['dataset_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE snapshots ADD CONSTRAINT snapshots_reason_valid CHECK (reason IN ('manual', 'creation', 'clone'))`);
  await knex.raw(`ALTER TABLE snapshots ADD CONSTRAINT snapshots_dataset_status_valid CHECK (dataset_status IN ('READY', 'PARTIAL INDEX'))`);
  // The latest snapshot taken or restored: `is_current`, and what restore `current` names.
  await knex.schema.alterTable('datasets', (t) => {
    t.uuid('current_snapshot_id').references('snapshots.id').onDelete('SET NULL');
  });
  // Files of batches a restore went back past are not pending any more: a later reindex must not bring them back.
  await knex.schema.alterTable('uploaded_files', (t) => {
    t.timestamp('discarded_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('uploaded_files', (t) => t.dropColumn('discarded_at'));
  await knex.schema.alterTable('datasets', (t) => t.dropColumn('current_snapshot_id'));
  await knex.schema.dropTableIfExists('snapshots');
}
