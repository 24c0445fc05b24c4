import type { Knex } from 'knex';

const TYPES_BEFORE = ['DATASET_CREATION', 'MEDIA_ADDITION', 'REINDEX', 'ENRICHMENT', 'CUSTOM_METADATA', 'SNAPSHOT_RESTORE', 'SNAPSHOT_CLONE', 'EXPORT'];

function typeConstraint(types: string[]): string {
  return `ALTER TABLE tasks ADD CONSTRAINT tasks_type_valid CHECK (task_type IN (${types.map((type) => `'${type}'`).join(', ')}))`;
}

/** Label propagation is a task (LABEL_PROPAGATION) like every operation that changes a dataset. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tasks DROP CONSTRAINT tasks_type_valid');
  await knex.raw(typeConstraint([...TYPES_BEFORE, 'LABEL_PROPAGATION']));
}

export async function down(knex: Knex): Promise<void> {
  await knex('tasks').where({ task_type: 'LABEL_PROPAGATION' }).delete();
  await knex.raw('ALTER TABLE tasks DROP CONSTRAINT tasks_type_valid');
  await knex.raw(typeConstraint(TYPES_BEFORE));
}
