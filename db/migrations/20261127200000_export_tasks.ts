import type { Knex } from 'knex';

const TYPES_BEFORE = ['DATASET_CREATION', 'MEDIA_ADDITION', 'REINDEX', 'ENRICHMENT', 'CUSTOM_METADATA', 'SNAPSHOT_RESTORE', 'SNAPSHOT_CLONE'];

function typeConstraint(types: string[]): string {
  return `ALTER TABLE tasks ADD CONSTRAINT tasks_type_valid CHECK (task_type IN (${types.map((type) => `'${type}'`).join(', ')}))`;
}

/**
 * Exports are tasks like every long operation (EXPORT). An export names each file of its archive
 * after the media's file name, and the media that share a name are told apart by their order, which
 * it looks up by (version, file name compared case-insensitively) among images and videos.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tasks DROP CONSTRAINT tasks_type_valid');
  await knex.raw(typeConstraint([...TYPES_BEFORE, 'EXPORT']));
  await knex.raw('CREATE INDEX media_version_top_file_name ON media (version_id, lower(file_name)) WHERE parent_id IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS media_version_top_file_name');
  await knex('tasks').where({ task_type: 'EXPORT' }).delete();
  await knex.raw('ALTER TABLE tasks DROP CONSTRAINT tasks_type_valid');
  await knex.raw(typeConstraint(TYPES_BEFORE));
}
