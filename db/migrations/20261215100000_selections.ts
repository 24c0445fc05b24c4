import type { Knex } from 'knex';

/** The task type this migration seeds (test/unit/taskModules.test.ts reads it). */
export const SEEDED_TASK_TYPES = ['SELECTION'];

/**
 * Selections (issue 52): a SELECTION task type, and on the tag it writes each chosen item's score and reason
 * (media_tags rows, so a snapshot, restore or clone keeps them with the tag; null on tags a user applied).
 */
export async function up(knex: Knex): Promise<void> {
  await knex('task_types').insert(SEEDED_TASK_TYPES.map((name) => ({ name })));
  await knex.raw('ALTER TABLE media_tags ADD COLUMN selection_score real, ADD COLUMN selection_reason text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE media_tags DROP COLUMN selection_score, DROP COLUMN selection_reason');
  await knex('tasks').whereIn('task_type', SEEDED_TASK_TYPES).delete();
  await knex('task_types').whereIn('name', SEEDED_TASK_TYPES).delete();
}
