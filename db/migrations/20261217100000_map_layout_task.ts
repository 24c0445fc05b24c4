import type { Knex } from 'knex';

/** The task type this migration seeds (test/unit/taskModules.test.ts reads it). */
export const SEEDED_TASK_TYPES = ['MAP_LAYOUT'];

/**
 * The map laid out by a task of its own after the analysis commits (docs/decisions.md "The map is laid out after
 * READY"): `map_due` is the layout id the next layout of a version's map gets, set by an analysis and cleared when
 * that layout is written; `map_task_id` the MAP_LAYOUT task laying it out.
 */
export async function up(knex: Knex): Promise<void> {
  await knex('task_types').insert(SEEDED_TASK_TYPES.map((name) => ({ name })));
  await knex.schema.alterTable('dataset_versions', (t) => {
    t.uuid('map_due').nullable();
    t.uuid('map_task_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dataset_versions', (t) => {
    t.dropColumn('map_due');
    t.dropColumn('map_task_id');
  });
  await knex('tasks').whereIn('task_type', SEEDED_TASK_TYPES).delete();
  await knex('task_types').whereIn('name', SEEDED_TASK_TYPES).delete();
}
