import type { Knex } from 'knex';

/**
 * A SELECTION task spread over workers (issue 52): each chunk of the pool stores its items' vectors as the choice
 * compares them (sketched when the pool is large), and the final step reads them all back and chooses. Rows live only
 * while their task runs: the task's end deletes them, and so does deleting the task.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('selection_parts', (t) => {
    t.uuid('task_id').notNullable().references('tasks.task_id').onDelete('CASCADE');
    t.integer('chunk').notNullable();
    t.integer('items').notNullable();
    // The chunk's vectors, one after another, as little-endian float32.
    t.binary('vectors').notNullable();
    t.primary(['task_id', 'chunk']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('selection_parts');
}
