import type { Knex } from 'knex';

/** A video frame that repeats an earlier frame of its video names that frame's index (lib/quality/repeatedFrames.ts); NULL for every other row. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE media ADD COLUMN repeat_of_frame integer');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE media DROP COLUMN repeat_of_frame');
}
