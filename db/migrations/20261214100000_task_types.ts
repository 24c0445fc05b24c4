import type { Knex } from 'knex';

/**
 * The task types this migration seeds. A new task type is a row a later migration inserts (exporting its own
 * SEEDED_TASK_TYPES), beside its module in lib/tasks; test/unit/taskModules.test.ts checks the two agree.
 */
export const SEEDED_TASK_TYPES = [
  'DATASET_CREATION',
  'MEDIA_ADDITION',
  'REINDEX',
  'ENRICHMENT',
  'CUSTOM_METADATA',
  'SNAPSHOT_RESTORE',
  'SNAPSHOT_CLONE',
  'LABEL_PROPAGATION',
  'LABEL_QUALITY',
  'EXPORT',
];

const quoted = (values: string[]) => values.map((value) => `'${value}'`).join(', ');

/** Task types as rows (issue 47): tasks.task_type references task_types instead of a CHECK every new type rewrote. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('task_types', (t) => {
    t.text('name').primary();
  });
  await knex('task_types').insert(SEEDED_TASK_TYPES.map((name) => ({ name })));
  await knex.raw('ALTER TABLE tasks DROP CONSTRAINT tasks_type_valid');
  await knex.schema.alterTable('tasks', (t) => {
    t.foreign('task_type', 'tasks_task_type_fk').references('task_types.name');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('tasks', (t) => {
    t.dropForeign('task_type', 'tasks_task_type_fk');
  });
  await knex.raw(`ALTER TABLE tasks ADD CONSTRAINT tasks_type_valid CHECK (task_type IN (${quoted(SEEDED_TASK_TYPES)}))`);
  await knex.schema.dropTable('task_types');
}
